/**
 * What the explorer page runs in the browser, as text the sidecar serves
 * (./explorer.ts): plain ES2017 with React and GraphiQL from their browser
 * bundles (globals `React`, `ReactDOM`, `GraphiQL`), so nothing is built for
 * the browser. The page's own element carries what the server knows:
 * whether the API answers introspection.
 */

/** explorer.js: mounts GraphiQL on the page's path; says so when introspection is off instead of asking for a schema. */
export const EXPLORER_SCRIPT = `'use strict';
(function () {
  var root = document.getElementById('sluice-explorer');
  var introspection = root.getAttribute('data-introspection') === 'true';
  var e = React.createElement;
  // The page's own path: Envoy routes it to this API, and the sidecar answers GraphQL there.
  var fetcher = GraphiQL.createFetcher({ url: window.location.pathname });
  var notice = introspection
    ? null
    : e(
        'div',
        { className: 'sluice-explorer-notice', role: 'status' },
        'Introspection is off for this API, so the explorer has no schema: no docs and no completion. ' +
          'Queries still run. The API answers introspection when executableSchema.executor.local.enableIntrospection is true.'
      );
  ReactDOM.createRoot(root).render(
    e(
      React.Fragment,
      null,
      notice,
      e(
        'div',
        { className: 'sluice-explorer-graphiql' },
        // schema null: GraphiQL asks for none (an introspection query would only be refused).
        e(GraphiQL, introspection ? { fetcher: fetcher } : { fetcher: fetcher, schema: null })
      )
    )
  );
})();
`;

/** explorer.css: GraphiQL fills the window below the notice, when there is one. */
export const EXPLORER_STYLE = `html, body { height: 100%; margin: 0; }
#sluice-explorer { display: flex; flex-direction: column; height: 100%; }
.sluice-explorer-notice { padding: 8px 16px; background: #fff4ce; color: #3b2f00; font: 14px/1.4 system-ui, sans-serif; border-bottom: 1px solid #e5d28a; }
.sluice-explorer-graphiql { flex: 1; min-height: 0; }
`;
