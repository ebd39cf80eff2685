/**
 * Which GET on a GraphQL API's path asks for the explorer (GraphiQL) rather
 * than a GraphQL answer: sluice-graphql answers by it, and `sluice explain`
 * says what sluice-graphql will answer by it. One rule for both.
 *
 * - a GET with the `explorer-asset` parameter: one of the page's assets;
 * - a GET without a `query` parameter whose Accept names text/html (what a
 *   browser's address bar sends): the page.
 */

export const EXPLORER_ASSET_PARAM = 'explorer-asset';

/** The assets the page loads, in its order: style sheets, then scripts. */
export const EXPLORER_ASSETS = [
  'graphiql.css',
  'explorer.css',
  'react.js',
  'react-dom.js',
  'graphiql.js',
  'explorer.js',
] as const;
export type ExplorerAsset = (typeof EXPLORER_ASSETS)[number];

export type ExplorerRequest = { page: true } | { asset: string };

/** What a request asks of the explorer, or undefined: a GraphQL request. `url`: path and query. */
export function explorerRequestOf(
  method: string,
  url: string,
  accept: string | undefined,
): ExplorerRequest | undefined {
  if (method !== 'GET') return undefined;
  const q = url.indexOf('?');
  const params = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  const asset = params.get(EXPLORER_ASSET_PARAM);
  if (asset !== null) return { asset };
  if (params.has('query')) return undefined;
  return acceptsHtml(accept) ? { page: true } : undefined;
}

/** Accept names text/html with a q above 0 (browsers send `text/html,...,*\/*;q=0.8`). */
function acceptsHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const [type = '', ...params] = part.split(';');
    if (type.trim().toLowerCase() !== 'text/html') return false;
    const q = params.map((p) => p.trim().split('=')).find(([k]) => k?.trim().toLowerCase() === 'q');
    return !q || Number(q[1]) > 0;
  });
}
