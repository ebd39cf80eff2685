/**
 * The GraphQL explorer: GraphiQL for a browser's GET on an API's path, where
 * the API enables it (`options.explorer.enabled`, compiled to `explorer`).
 * Gateways often have no internet, so the page loads nothing from elsewhere:
 * React's and GraphiQL's browser bundles come from this package's own
 * node_modules and are served by the sidecar on the page's path, as
 * `?explorer-asset=NAME`, so that whatever route sent the page here sends
 * its assets and its GraphQL requests too.
 *
 * Which requests are the explorer's: contract/graphql-explorer.ts. Anything
 * else is GraphQL over HTTP as before, and so is an explorer request to an
 * API without the explorer.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { GraphQLApiConfig } from './api.js';
import { EXPLORER_SCRIPT, EXPLORER_STYLE } from './explorer-client.js';
import type { ApiRegistry } from './registry.js';
import { EXPLORER_ASSET_PARAM, explorerRequestOf, type ExplorerAsset } from '../contract/graphql-explorer.js';
import { GRAPHQL_API_HEADER } from '../contract/names.js';

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** Asset name -> [package, file in it] or the text itself. */
const ASSETS: Record<ExplorerAsset, { type: string; from: [string, string] | string }> = {
  'react.js': { type: JS, from: ['react', 'umd/react.production.min.js'] },
  'react-dom.js': { type: JS, from: ['react-dom', 'umd/react-dom.production.min.js'] },
  'graphiql.js': { type: JS, from: ['graphiql', 'graphiql.min.js'] },
  'graphiql.css': { type: CSS, from: ['graphiql', 'graphiql.min.css'] },
  'explorer.js': { type: JS, from: EXPLORER_SCRIPT },
  'explorer.css': { type: CSS, from: EXPLORER_STYLE },
};

interface Asset {
  type: string;
  body: Buffer;
  /** The gzip of body: GraphiQL's 1 MiB bundle is a quarter of that compressed. */
  gzip: Buffer;
  etag: string;
}

/** Read on the first explorer request only: a sidecar whose APIs have no explorer never loads 1.2 MiB of assets. */
let loaded: Map<string, Asset> | undefined;

function assets(): Map<string, Asset> {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const map = new Map<string, Asset>();
  for (const [name, { type, from }] of Object.entries(ASSETS)) {
    const body =
      typeof from === 'string'
        ? Buffer.from(from)
        : readFileSync(path.join(path.dirname(require.resolve(`${from[0]}/package.json`)), from[1]));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    map.set(name, { type, body, gzip: gzipSync(body), etag });
  }
  return (loaded = map);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Whether the API answers introspection: the compiled flag of either schema kind (remote executors: never). */
function answersIntrospection(config: GraphQLApiConfig): boolean {
  return config.executable?.enableIntrospection ?? config.stitched?.enableIntrospection ?? false;
}

export function explorerPage(config: GraphQLApiConfig): string {
  const asset = (name: string) => `?${EXPLORER_ASSET_PARAM}=${name}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(config.name)} · GraphQL explorer</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${asset('graphiql.css')}">
<link rel="stylesheet" href="${asset('explorer.css')}">
</head>
<body>
<div id="sluice-explorer" data-api="${escapeHtml(config.name)}" data-introspection="${answersIntrospection(config)}"></div>
<noscript>The GraphQL explorer needs JavaScript.</noscript>
<script src="${asset('react.js')}"></script>
<script src="${asset('react-dom.js')}"></script>
<script src="${asset('graphiql.js')}"></script>
<script src="${asset('explorer.js')}"></script>
</body>
</html>
`;
}

/**
 * Scripts and styles from this origin only (GraphiQL sets inline styles and
 * its CSS embeds fonts and images as data: URLs); GraphQL requests to this
 * origin only; never framed.
 */
const SECURITY_HEADERS: http.OutgoingHttpHeaders = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

function acceptsGzip(req: http.IncomingMessage): boolean {
  return /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
}

/**
 * Answers an explorer request when its API has the explorer on; false when
 * it does not (not ready, no such API, explorer off): the caller answers it
 * as a GraphQL request, with that answer's error.
 */
/** What the explorer answered, as sluice_graphql_explorer_requests_total counts it. */
export type ExplorerAnswer = 'page' | 'asset' | 'not_modified' | 'unknown_asset';

export function answerExplorer(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  registry: ApiRegistry,
  closing: boolean,
): { api: string; answer: ExplorerAnswer } | undefined {
  const wanted = explorerRequestOf(req.method ?? '', req.url ?? '', req.headers.accept);
  if (!wanted || !registry.ready) return undefined;
  const name = req.headers[GRAPHQL_API_HEADER];
  const lease = typeof name === 'string' && name !== '' ? registry.acquire(name) : undefined;
  if (!lease) return undefined;
  const answered = (answer: ExplorerAnswer) => ({ api: lease.config.name, answer });
  try {
    if (!lease.config.explorer) return undefined;
    const headers: http.OutgoingHttpHeaders = { ...SECURITY_HEADERS, vary: 'accept, accept-encoding' };
    if (closing) headers.connection = 'close';
    if ('page' in wanted) {
      const html = explorerPage(lease.config);
      // The page says what the API is now (introspection on or off): never cached.
      res.writeHead(200, {
        ...headers,
        'content-type': 'text/html; charset=utf-8',
        'content-length': Buffer.byteLength(html),
        'cache-control': 'no-store',
      });
      res.end(html);
      return answered('page');
    }
    const asset = assets().get(wanted.asset);
    if (!asset) {
      const text = `no explorer asset named ${wanted.asset}`;
      res.writeHead(404, { ...headers, 'content-type': 'text/plain; charset=utf-8', 'content-length': text.length });
      res.end(text);
      return answered('unknown_asset');
    }
    if (req.headers['if-none-match'] === asset.etag) {
      res.writeHead(304, { ...headers, etag: asset.etag });
      res.end();
      return answered('not_modified');
    }
    const gzip = acceptsGzip(req);
    const body = gzip ? asset.gzip : asset.body;
    res.writeHead(200, {
      ...headers,
      'content-type': asset.type,
      'content-length': body.length,
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      etag: asset.etag,
      // Revalidated by its ETag: an upgrade of the sidecar changes the bundles under the same URL.
      'cache-control': 'no-cache',
    });
    res.end(body);
    return answered('asset');
  } finally {
    lease.release();
  }
}
