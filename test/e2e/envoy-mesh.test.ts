/**
 * End to end against a real Envoy in mesh mode: an Envoy with its own
 * bootstrap (a listener and cluster of its team's, for its own host) gets the
 * pieces `sluice bootstrap --mesh` prints pasted into a second static
 * listener of its own; `sluice serve --mesh` then supplies that listener's
 * routes (RDS), the clusters (CDS) and the HTTP filters (ECDS). A Sluice host
 * is routed to its upstream, a route with a fault shows the filters arrived,
 * and the team's own host is untouched. Runs when ENVOY_BIN or `envoy` on
 * PATH exists; otherwise says so and skips. The pasted bootstrap is checked
 * either way.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatDiagnostic } from '../../compiler/diagnostics.js';
import { serialize } from '../../compiler/emit/write.js';
import { MESH_DEFAULTS } from '../../compiler/translate/mesh.js';
import { DEFAULT_OPTIONS, type Json } from '../../compiler/translate/output.js';
import { verifyBootstrap } from '../../compiler/verify/verify.js';
import { meshPieces } from '../../control-plane/bootstrap.js';
import { startServe, type Serving } from '../../control-plane/run.js';
import { closedPort } from '../extauth/helpers.js';
import { findEnvoy, noEnvoyReason, startEnvoy, type RunningEnvoy } from '../../harness/envoy.js';
import { httpGet } from '../../harness/http.js';
import { testLogger } from '../../harness/log-check.js';

const ENVOY = findEnvoy();
if (!ENVOY) console.log(noEnvoyReason('test/e2e/envoy-mesh.test.ts'));
const describeWithEnvoy = ENVOY ? describe : describe.skip;

const RESOURCES = (echo: number) => `apiVersion: gloo.gateway.example/v1
kind: Upstream
metadata: {name: echo, namespace: shop}
spec:
  static: {hosts: [{addr: 127.0.0.1, port: ${echo}}]}
---
apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: {name: shop, namespace: shop}
spec:
  virtualHost:
    domains: [shop.example.com]
    routes:
      - matchers: [{prefix: /teapot}]
        routeAction: {single: {upstream: {name: echo}}}
        options: {faults: {abort: {percentage: 100, httpStatus: 418}}}
      - matchers: [{prefix: /}]
        routeAction: {single: {upstream: {name: echo}}}
`;

const ROUTER: Json = {
  name: 'envoy.filters.http.router',
  typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router' },
};
const HCM_TYPE =
  'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';

/** The team's bootstrap: its own listener, cluster and host, and a listener of its own with Sluice's pieces pasted in. */
function teamBootstrap(ports: { xds: number; admin: number; own: number; sluice: number; teamEcho: number }): Json {
  const pieces = meshPieces({ host: '127.0.0.1', port: ports.xds }, MESH_DEFAULTS);
  const listener = (name: string, port: number, hcm: Json) => ({
    name,
    address: { socket_address: { address: '127.0.0.1', port_value: port } },
    filter_chains: [
      {
        filters: [
          {
            name: 'envoy.filters.network.http_connection_manager',
            typed_config: { '@type': HCM_TYPE, stat_prefix: name, ...hcm },
          },
        ],
      },
    ],
  });
  return {
    node: { id: 'team-envoy', cluster: 'team' },
    admin: { address: { socket_address: { address: '127.0.0.1', port_value: ports.admin } } },
    dynamic_resources: { cds_config: pieces.cdsConfig },
    static_resources: {
      clusters: [
        pieces.cluster,
        {
          name: 'team-echo',
          type: 'STATIC',
          connect_timeout: '1s',
          load_assignment: {
            cluster_name: 'team-echo',
            endpoints: [
              {
                lb_endpoints: [
                  { endpoint: { address: { socket_address: { address: '127.0.0.1', port_value: ports.teamEcho } } } },
                ],
              },
            ],
          },
        },
      ],
      listeners: [
        listener('team-own', ports.own, {
          route_config: {
            name: 'team',
            virtual_hosts: [
              { name: 'team', domains: ['*'], routes: [{ match: { prefix: '/' }, route: { cluster: 'team-echo' } }] },
            ],
          },
          http_filters: [ROUTER],
        }),
        listener('team-sluice', ports.sluice, { rds: pieces.rds, http_filters: [...pieces.httpFilters, ROUTER] }),
      ],
    },
  };
}

test('the team bootstrap with the mesh pieces pasted passes the Envoy proto check (with or without Envoy)', () => {
  const bootstrap = teamBootstrap({ xds: 18000, admin: 19000, own: 8080, sluice: 8081, teamEcho: 9000 });
  expect(verifyBootstrap(bootstrap).map(formatDiagnostic)).toEqual([]);
});

describeWithEnvoy('an Envoy with its own listeners, wired to sluice serve --mesh', () => {
  let dir: string;
  let serving: Serving;
  let envoy: RunningEnvoy | undefined;
  const servers: Server[] = [];
  const ports = { xds: 0, admin: 0, own: 0, sluice: 0, teamEcho: 0 };

  const echo = async (name: string) => {
    const server = createServer((req, res) => res.end(`${name} ${req.headers.host} ${req.url}`));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push(server);
    return (server.address() as AddressInfo).port;
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sluice-e2e-mesh-'));
    writeFileSync(path.join(dir, 'resources.yaml'), RESOURCES(await echo('sluice-upstream')));
    ports.teamEcho = await echo('team-upstream');
    serving = await startServe({
      paths: [dir],
      compileOptions: { ...DEFAULT_OPTIONS, mesh: MESH_DEFAULTS },
      host: '127.0.0.1',
      xdsPort: 0,
      adminPort: 0,
      logger: testLogger(),
    });
    ports.xds = serving.xdsPort;
    ports.admin = await closedPort();
    ports.own = await closedPort();
    ports.sluice = await closedPort();
    writeFileSync(path.join(dir, 'envoy.yaml'), serialize(teamBootstrap(ports), 'yaml'));
    envoy = await startEnvoy(ENVOY!, path.join(dir, 'envoy.yaml'), ports.admin);
  });

  afterAll(async () => {
    await envoy?.stop();
    await serving?.close();
    for (const s of servers) s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a Sluice host on the team's listener is routed to its upstream", async () => {
    expect(await httpGet(ports.sluice, 'shop.example.com', '/hello')).toEqual({
      status: 200,
      body: 'sluice-upstream shop.example.com /hello',
    });
  });

  test('a route with a fault: the filter came over ECDS and aborts', async () => {
    expect((await httpGet(ports.sluice, 'shop.example.com', '/teapot')).status).toBe(418);
  });

  test("the team's own listener and host are untouched", async () => {
    expect(await httpGet(ports.own, 'team.example.com', '/x')).toEqual({
      status: 200,
      body: 'team-upstream team.example.com /x',
    });
  });
});
