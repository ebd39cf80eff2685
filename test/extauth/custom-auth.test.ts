/**
 * customAuth: a compiled route's check reaches the team's own gRPC ext_authz
 * server (written here) the Settings resource names. No Envoy runs here, so
 * the test does what Envoy's ext_authz filter would with the compiled xDS:
 * for the route a request matches, the ext_authz filter its per-route or
 * per-virtual-host config leaves on, that filter's gRPC cluster, the
 * cluster's endpoint, and a Check call to it with the check_settings'
 * context_extensions and the filter's timeout. The Envoy end-to-end tests
 * (test/e2e) cover the filter chain itself when an envoy binary is present.
 */
import * as grpc from '@grpc/grpc-js';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { authorizationClient, authorizationService } from '../../extauth-server/protos.js';
import { envoyCheckRequest } from '../../harness/extauth-check.js';
import { tempDir } from '../../harness/temp-dir.js';
import { httpStatus, type CheckResponse } from './helpers.js';

type Json = Record<string, any>;

/** The team's server: allows team blue, denies anyone else; records the context_extensions it is sent. */
let team: { port: number; seen: Record<string, string>[]; server: grpc.Server };
let xds: {
  listeners: Map<string, Json>;
  routes: Map<string, Json>;
  clusters: Map<string, Json>;
  endpoints: Map<string, Json>;
};

beforeAll(async () => {
  const server = new grpc.Server();
  const seen: Record<string, string>[] = [];
  server.addService(authorizationService(), {
    Check: (call: grpc.ServerUnaryCall<any, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      const ctx = call.request.attributes.context_extensions as Record<string, string>;
      seen.push(ctx);
      cb(
        null,
        ctx.team === 'blue'
          ? { status: { code: 0 } }
          : { status: { code: 7 }, denied_response: { status: { code: 'Forbidden' }, body: 'not your team' } },
      );
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  team = { port, seen, server };
  const dir = tempDir('custom-auth');
  await writeFile(
    path.join(dir, 'resources.yaml'),
    `apiVersion: gloo.solo.io/v1
kind: Settings
metadata: {name: default, namespace: gloo-system}
spec:
  extauth:
    extauthzServerRef: {name: team-auth, namespace: gloo-system}
    requestTimeout: 2s
---
apiVersion: gloo.solo.io/v1
kind: Upstream
metadata: {name: team-auth, namespace: gloo-system}
spec:
  useHttp2: true
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
      - matchers: [{prefix: /red}]
        routeAction: {single: {upstream: {name: app, namespace: gloo-system}}}
        options: {extauth: {customAuth: {contextExtensions: {team: red}}}}
      - matchers: [{prefix: /open}]
        routeAction: {single: {upstream: {name: app, namespace: gloo-system}}}
        options: {extauth: {disable: true}}
      - matchers: [{prefix: /}]
        routeAction: {single: {upstream: {name: app, namespace: gloo-system}}}
    options:
      extauth: {customAuth: {contextExtensions: {team: blue}}}
`,
  );
  const result = await compileFiles([dir], DEFAULT_OPTIONS);
  expect(result.diagnostics).toEqual([]);
  xds = result.xds as unknown as typeof xds;
});

afterAll(() => team?.server.forceShutdown());

/** Every value under `key` anywhere in `json`. */
function all(json: unknown, key: string): any[] {
  if (typeof json !== 'object' || json === null) return [];
  return Object.entries(json).flatMap(([k, v]) => [...(k === key ? [v] : []), ...all(v, key)]);
}

/** What Envoy would do for GET `path` on team.example.com: the ext_authz filter left on, and its Check call; undefined when none is on. */
async function checkFor(requestPath: string): Promise<CheckResponse | undefined> {
  const vh = all([...xds.routes.values()], 'virtual_hosts')
    .flat()
    .find((v: Json) => v.domains.includes('team.example.com'));
  const route = vh.routes.find((r: Json) => requestPath.startsWith(r.match.prefix));
  const filters: Json[] = all([...xds.listeners.values()], 'http_filters').flat();
  const on = filters.filter((f) => {
    if (!f.typed_config['@type'].endsWith('ext_authz.v3.ExtAuthz')) return false;
    const perRoute = route.typed_per_filter_config?.[f.name] ?? vh.typed_per_filter_config?.[f.name];
    return perRoute && !perRoute.disabled;
  });
  expect(on.length).toBeLessThanOrEqual(1);
  if (!on.length) return undefined;
  const filter = on[0]!;
  const settings = (route.typed_per_filter_config?.[filter.name] ?? vh.typed_per_filter_config[filter.name])
    .check_settings;
  const cluster = filter.typed_config.grpc_service.envoy_grpc.cluster_name as string;
  const sockets = all([xds.clusters.get(cluster), xds.endpoints.get(cluster)], 'socket_address');
  const { address, port_value } = sockets[0];
  const Client = authorizationClient();
  const client = new Client(`${address}:${port_value}`, grpc.credentials.createInsecure()) as any;
  const request = envoyCheckRequest(undefined, { ':path': requestPath }) as Json;
  request.attributes.context_extensions = settings.context_extensions ?? {};
  const timeoutMs = Number(/^([\d.]+)s$/.exec(filter.typed_config.grpc_service.timeout)![1]) * 1000;
  try {
    return await new Promise<CheckResponse>((resolve, reject) =>
      client.Check(request, { deadline: Date.now() + timeoutMs }, (err: Error | null, res: CheckResponse) =>
        err ? reject(err) : resolve(res),
      ),
    );
  } finally {
    client.close();
  }
}

test("the virtual host's customAuth: the check reaches the team's server with its context_extensions, and is allowed", async () => {
  const res = await checkFor('/pets');
  expect(httpStatus(res!)).toBe(200);
  expect(team.seen.at(-1)).toEqual({ team: 'blue' });
});

test("a route's own customAuth replaces the host's context_extensions: the team's server denies it", async () => {
  const res = await checkFor('/red/apples');
  expect(httpStatus(res!)).toBe(403);
  expect(team.seen.at(-1)).toEqual({ team: 'red' });
});

test('a route with ext auth disabled: no ext_authz filter is on, nothing is asked', async () => {
  const before = team.seen.length;
  expect(await checkFor('/open/health')).toBeUndefined();
  expect(team.seen.length).toBe(before);
});

test("sluice-extauth's own filter is not asked: no virtual host here has an AuthConfig, so it is not in the chain", () => {
  const names = all([...xds.listeners.values()], 'http_filters')
    .flat()
    .map((f: Json) => f.name);
  expect(names).toContain('envoy.filters.http.ext_authz.custom');
  expect(names).not.toContain('envoy.filters.http.ext_authz');
});
