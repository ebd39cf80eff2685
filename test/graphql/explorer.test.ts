/**
 * The GraphQL explorer over HTTP, against a running sluice-graphql with real
 * upstreams: the page a browser's GET gets where the API enables it, the
 * assets it loads (the bytes of React's and GraphiQL's bundles, gzip, ETag),
 * GraphQL requests as GraphiQL sends them from the page, and APIs without
 * the explorer answering as before. test/graphql/explorer-browser.test.ts
 * runs the page itself in Chromium.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { getIntrospectionQuery } from 'graphql';
import { API_HEADER, startExplorerFixture, type ExplorerFixture } from './explorer-fixture.js';

/** Chromium's Accept for a page. */
const BROWSER_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8';

let fx: ExplorerFixture;

beforeAll(async () => {
  fx = await startExplorerFixture();
});

afterAll(async () => {
  await fx?.close();
});

function get(api: string, query = '', headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${fx.url}${query}`, { headers: { accept: BROWSER_ACCEPT, [API_HEADER]: api, ...headers } });
}

/** The `src` and `href` of the page's scripts and style sheets (the empty data: icon aside). */
function assetUrls(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((u) => !u.startsWith('data:'));
}

function packageFile(pkg: string, file: string): Buffer {
  const require = createRequire(import.meta.url);
  return readFileSync(path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file));
}

test("a browser's GET on an API with the explorer gets GraphiQL's page, locked to the sidecar's own origin", async () => {
  const res = await get('default.users');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(res.headers.get('cache-control')).toBe('no-store');
  const csp = res.headers.get('content-security-policy')!;
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("connect-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  const html = await res.text();
  expect(html).toContain('<title>default.users · GraphQL explorer</title>');
  expect(html).toContain('data-introspection="true"');
  // An empty icon: the browser asks for no /favicon.ico, which is no GraphQL request either.
  expect(html).toContain('<link rel="icon" href="data:,">');
  // Nothing from another origin: every asset is a query on the page's own path.
  expect(assetUrls(html)).toEqual([
    '?explorer-asset=graphiql.css',
    '?explorer-asset=explorer.css',
    '?explorer-asset=react.js',
    '?explorer-asset=react-dom.js',
    '?explorer-asset=graphiql.js',
    '?explorer-asset=explorer.js',
  ]);
});

test("the page's assets are the packages' browser bundles, gzipped when asked, revalidated by ETag", async () => {
  const html = await (await get('default.users')).text();
  const types: Record<string, string> = {};
  for (const src of assetUrls(html)) {
    const res = await get('default.users', src, { 'accept-encoding': 'identity' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBeNull();
    types[src.split('=')[1]!] = res.headers.get('content-type')!;
  }
  expect(types).toEqual({
    'graphiql.css': 'text/css; charset=utf-8',
    'explorer.css': 'text/css; charset=utf-8',
    'react.js': 'text/javascript; charset=utf-8',
    'react-dom.js': 'text/javascript; charset=utf-8',
    'graphiql.js': 'text/javascript; charset=utf-8',
    'explorer.js': 'text/javascript; charset=utf-8',
  });
  const react = await get('default.users', '?explorer-asset=react.js', { 'accept-encoding': 'identity' });
  // Buffer.equals: jest's toEqual walks a megabyte byte by byte.
  expect(Buffer.from(await react.arrayBuffer()).equals(packageFile('react', 'umd/react.production.min.js'))).toBe(true);

  const bundle = packageFile('graphiql', 'graphiql.min.js');
  const zipped = await get('default.users', '?explorer-asset=graphiql.js', { 'accept-encoding': 'gzip, br' });
  expect(zipped.headers.get('content-encoding')).toBe('gzip');
  expect(Number(zipped.headers.get('content-length'))).toBeLessThan(bundle.length / 2);
  // fetch decodes the gzip: the bytes are the bundle's.
  expect(Buffer.from(await zipped.arrayBuffer()).equals(bundle)).toBe(true);

  const etag = zipped.headers.get('etag')!;
  expect(etag).toMatch(/^"[\w-]{22}"$/);
  const again = await get('default.users', '?explorer-asset=graphiql.js', { 'if-none-match': etag });
  expect(again.status).toBe(304);

  const unknown = await get('default.users', '?explorer-asset=../package.json');
  expect(unknown.status).toBe(404);
  expect(await unknown.text()).toBe('no explorer asset named ../package.json');
});

test('GraphQL requests on the same path are GraphQL as before, as GraphiQL sends them and with a query parameter', async () => {
  const res = await fetch(fx.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, multipart/mixed',
      [API_HEADER]: 'default.users',
    },
    body: JSON.stringify({ query: '{ user(id: 1) { name email } }' }),
  });
  expect(await res.json()).toEqual({ data: { user: { name: 'Ada', email: 'ada@example.org' } } });
  // A GET with a query is a GraphQL request even from a browser's address bar.
  const viaGet = await get('default.users', `?query=${encodeURIComponent('{ user(id: 2) { name } }')}`);
  expect(viaGet.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(await viaGet.json()).toEqual({ data: { user: { name: 'Grace' } } });
});

test("a remote API's page says it has no introspection; a stitched API's page gets the stitched schema", async () => {
  const greeter = await (await get('default.greeter')).text();
  expect(greeter).toContain('data-introspection="false"');
  const script = await (await get('default.greeter', '?explorer-asset=explorer.js')).text();
  expect(script).toContain('Introspection is off for this API');

  const shop = await (await get('default.shop')).text();
  expect(shop).toContain('data-introspection="true"');
  const res = await fetch(fx.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [API_HEADER]: 'default.shop' },
    body: JSON.stringify({ query: getIntrospectionQuery() }),
  });
  const { data } = (await res.json()) as {
    data: { __schema: { types: { name: string; fields: { name: string }[] }[] } };
  };
  const query = data.__schema.types.find((t) => t.name === 'Query')!;
  expect(query.fields.map((f) => f.name).sort()).toEqual(['greeting', 'user']);
  expect(data.__schema.types.map((t) => t.name)).toContain('User');
});

test('an API without the explorer answers a browser as GraphQL over HTTP does (no page, no assets)', async () => {
  const page = await get('default.hidden');
  expect(page.status).toBe(400);
  expect(page.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(await page.json()).toEqual({
    errors: [{ message: 'the request has no query', extensions: { code: 'BAD_REQUEST' } }],
  });
  expect((await get('default.hidden', '?explorer-asset=graphiql.js')).status).toBe(400);
  // No API header (Envoy sets it on the route): the usual 404.
  const none = await fetch(fx.url, { headers: { accept: BROWSER_ACCEPT } });
  expect(none.status).toBe(404);
});

test("/metrics counts the explorer's answers by API (page, asset, not_modified, unknown_asset), apart from GraphQL requests", async () => {
  const metrics = async () => {
    const text = await (await fetch(`http://127.0.0.1:${fx.server.adminPort}/metrics`)).text();
    const counts: Record<string, number> = {};
    const requests = text.match(/^sluice_graphql_requests_total\{api="default\.greeter",[^}]*\} \d+$/gm) ?? [];
    counts.graphql = requests.reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
    for (const m of text.matchAll(
      /^sluice_graphql_explorer_requests_total\{api="default\.greeter",answer="(\w+)"\} (\d+)$/gm,
    ))
      counts[m[1]!] = Number(m[2]);
    return counts;
  };
  const before = await metrics();
  await get('default.greeter');
  const js = await get('default.greeter', '?explorer-asset=explorer.js');
  await get('default.greeter', '?explorer-asset=explorer.js', { 'if-none-match': js.headers.get('etag')! });
  await get('default.greeter', '?explorer-asset=nothing.js');
  // The one GraphQL request among them, as the page sends it.
  await fetch(fx.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [API_HEADER]: 'default.greeter' },
    body: JSON.stringify({ query: '{ greeting(name: "metrics") }' }),
  });
  const after = await metrics();
  const grown = Object.fromEntries(
    ['page', 'asset', 'not_modified', 'unknown_asset', 'graphql'].map((a) => [a, (after[a] ?? 0) - (before[a] ?? 0)]),
  );
  expect(grown).toEqual({ page: 1, asset: 1, not_modified: 1, unknown_asset: 1, graphql: 1 });
});
