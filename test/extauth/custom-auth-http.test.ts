/**
 * customAuth with Gloo's httpService: the team's server answers Envoy's plain
 * HTTP check. No Envoy runs here, so the test makes the check request as
 * Envoy's ext_authz filter would from the compiled config (its cluster's
 * endpoint, path_prefix before the request's path, the request's method, the
 * headers Envoy always sends plus allowed_headers, headers_to_add, no body)
 * to a real HTTP server on 127.0.0.1, and applies allowed_upstream_headers to
 * the allowed request. `sluice explain` is checked on the same compiled config.
 */
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { tempDir } from '../../harness/temp-dir.js';

type Json = Record<string, any>;

/** The team's server: allows a request whose x-team is blue (answering with the user), denies others with its own 401. */
let server: http.Server;
const seen: { method: string; url: string; headers: http.IncomingHttpHeaders }[] = [];
let xds: { listeners: Map<string, Json>; routes: Map<string, Json>; endpoints: Map<string, Json> };
let config: GatewayConfig;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers });
    if (req.headers['x-team'] === 'blue') res.writeHead(200, { 'x-user-id': 'alice', 'x-other': 'dropped' }).end();
    else res.writeHead(401, { 'www-authenticate': 'Team', 'x-debug': 'hidden' }).end('not your team');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const dir = tempDir('custom-auth-http');
  await writeFile(
    path.join(dir, 'resources.yaml'),
    `apiVersion: gloo.solo.io/v1
kind: Settings
metadata: {name: default, namespace: gloo-system}
spec:
  extauth:
    extauthzServerRef: {name: team-auth, namespace: gloo-system}
    requestTimeout: 2s
    httpService:
      pathPrefix: /check/
      request:
        allowedHeaders: [X-Team]
        headersToAdd: {x-gateway: sluice}
      response:
        allowedUpstreamHeaders: [x-user-id]
        allowedClientHeaders: [www-authenticate]
---
apiVersion: gloo.solo.io/v1
kind: Upstream
metadata: {name: team-auth, namespace: gloo-system}
spec:
  static: {hosts: [{addr: 127.0.0.1, port: ${port}}]}
---
apiVersion: gloo.solo.io/v1
kind: Upstream
metadata: {name: app, namespace: gloo-system}
spec:
  static: {hosts: [{addr: 127.0.0.1, port: 8080}]}
---
apiVersion: gateway.solo.io/v1
kind: VirtualService
metadata: {name: team, namespace: default}
spec:
  virtualHost:
    domains: [team.example.com]
    routes:
      - matchers: [{prefix: /}]
        routeAction: {single: {upstream: {name: app, namespace: gloo-system}}}
    options:
      extauth: {customAuth: {}}
`,
  );
  const result = await compileFiles([dir], DEFAULT_OPTIONS);
  expect(result.diagnostics).toEqual([]);
  xds = result.xds as unknown as typeof xds;
  config = fromCompileResult(result)!;
});

afterAll(() => server?.close());

/** Every value under `key` anywhere in `json`. */
function all(json: unknown, key: string): any[] {
  if (typeof json !== 'object' || json === null) return [];
  return Object.entries(json).flatMap(([k, v]) => [...(k === key ? [v] : []), ...all(v, key)]);
}

const matches = (list: Json | undefined, name: string) =>
  (list?.patterns ?? []).some((p: Json) =>
    p.exact !== undefined ? p.exact === name : new RegExp(p.safe_regex.regex).test(name),
  );

/** Envoy's HTTP check for a client request; the answer, and the request's headers as they go upstream when allowed. */
async function check(method: string, requestPath: string, headers: Record<string, string>) {
  const filter = all([...xds.listeners.values()], 'http_filters')
    .flat()
    .find((f: Json) => f.name === 'envoy.filters.http.ext_authz.custom').typed_config;
  const svc = filter.http_service;
  const [{ address, port_value }] = all(xds.endpoints.get(svc.server_uri.cluster), 'socket_address');
  const sent: Record<string, string> = { 'content-length': '0' };
  for (const [k, v] of Object.entries(headers))
    if (['authorization'].includes(k) || matches(filter.allowed_headers, k)) sent[k] = v;
  for (const { key, value } of svc.authorization_request?.headers_to_add ?? []) sent[key] = value;
  const res = await fetch(`http://${address}:${port_value}${svc.path_prefix}${requestPath}`, {
    method,
    headers: { ...sent, host: 'team.example.com' },
  });
  const answer = Object.fromEntries(res.headers);
  const upstream = { ...headers };
  if (res.ok)
    for (const [k, v] of Object.entries(answer))
      if (matches(svc.authorization_response.allowed_upstream_headers, k)) upstream[k] = v;
  const client = Object.fromEntries(
    Object.entries(answer).filter(([k]) => matches(svc.authorization_response.allowed_client_headers, k)),
  );
  return { status: res.status, body: await res.text(), upstream, client };
}

test('the check is an HTTP request to the prefixed path with the allowed headers and the added ones, no others', async () => {
  const r = await check('DELETE', '/pets/1?x=1', { 'x-team': 'blue', cookie: 'secret', authorization: 'Bearer t' });
  expect(r.status).toBe(200);
  expect(seen.at(-1)).toMatchObject({
    method: 'DELETE',
    url: '/check/pets/1?x=1',
    headers: { 'x-team': 'blue', 'x-gateway': 'sluice', authorization: 'Bearer t' },
  });
  expect(seen.at(-1)!.headers.cookie).toBeUndefined();
  // Only the allowed answer header reaches the upstream.
  expect(r.upstream).toMatchObject({ 'x-user-id': 'alice' });
  expect(r.upstream['x-other']).toBeUndefined();
});

test("a denial is the server's own status and body, with only the allowed headers", async () => {
  const r = await check('GET', '/pets', { 'x-team': 'red' });
  expect(r).toMatchObject({ status: 401, body: 'not your team', client: { 'www-authenticate': 'Team' } });
  expect(r.client['x-debug']).toBeUndefined();
});

test('explain names the HTTP check, what it carries, and the denial', async () => {
  const e = await explain(config, { method: 'GET', url: 'http://team.example.com/pets', headers: [] });
  const step = e.steps.find((s) => s.stage === 'ext_authz.custom')!;
  expect(step.summary).toBe(
    "the request is checked by the team's server at cluster team-auth (HTTP, path /check/pets)",
  );
  expect(step.details).toEqual([
    'headers sent: host, method, path, content-length, authorization, x-team; no body',
    'headers set on the check: x-gateway: sluice',
    "the server's answer headers copied onto the request: x-user-id",
  ]);
  expect(e.answer.status).toBe('upstream');
  expect(e.answer.otherwise).toContainEqual(expect.objectContaining({ status: 403 }));
});
