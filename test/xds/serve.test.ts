/**
 * `sluice serve` end to end without Envoy: real pipeline, real files edited on
 * disk, real ADS clients (SotW and delta), the admin port over HTTP, and the
 * built binary for SIGTERM.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parse } from 'yaml';
import { verifyBootstrap } from '../../compiler/verify/verify.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import type { CompileOutcome } from '../../control-plane/control.js';
import { startServe, type Serving } from '../../control-plane/run.js';
import { DeltaClient, SotwClient, type Response } from '../../harness/xds-client.js';
import { TYPE_URL as T } from './fixtures.js';
import { tempDir } from '../../harness/temp-dir.js';
import { testLogger } from '../../harness/log-check.js';

const SERVICE = `apiVersion: v1
kind: Service
metadata: {name: petstore, namespace: default}
spec:
  ports: [{port: 8080}]
---
apiVersion: gloo.gateway.example/v1
kind: Upstream
metadata: {name: legacy, namespace: default}
spec:
  static:
    hosts: [{addr: 10.0.0.7, port: 8000}]
`;

function virtualService(prefix: string, service = 'petstore'): string {
  return `apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: {name: petstore, namespace: default}
spec:
  virtualHost:
    domains: [petstore.example.com]
    routes:
      - matchers: [{prefix: ${prefix}}]
        routeAction:
          single:
            kube: {ref: {name: ${service}, namespace: default}, port: 8080}
      - matchers: [{prefix: /legacy}]
        routeAction:
          single:
            upstream: {name: legacy}
`;
}

/** Writes through a temporary file and a rename, as editors do. */
function edit(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

function inputDir(vs: string): { dir: string; vsFile: string } {
  const dir = tempDir('serve');
  writeFileSync(path.join(dir, 'services.yaml'), SERVICE);
  const vsFile = path.join(dir, 'virtualservice.yaml');
  writeFileSync(vsFile, vs);
  return { dir, vsFile };
}

function nextCompile(serving: Serving, ok: boolean): Promise<CompileOutcome> {
  return new Promise((resolve) => {
    const on = (o: CompileOutcome) => {
      if (o.ok !== ok) return;
      serving.control.off('compiled', on);
      resolve(o);
    };
    serving.control.on('compiled', on);
  });
}

const prefixesOf = (r: Response) => r.resources[0].virtual_hosts[0].routes.map((x: any) => x.match.prefix);

async function http(port: number, p: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${p}`);
  return { status: res.status, body: await res.text() };
}

const clients: Array<{ close(): void }> = [];
let serving: Serving | undefined;
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await serving?.close();
  serving = undefined;
});

async function serve(dir: string): Promise<Serving> {
  serving = await startServe({
    paths: [dir],
    compileOptions: DEFAULT_OPTIONS,
    host: '127.0.0.1',
    xdsPort: 0,
    adminPort: 0,
    logger: testLogger(),
    debounceMs: 20,
  });
  return serving;
}

test('files edited on disk while clients are connected: good edits pushed, a broken edit not, its repair pushed', async () => {
  const { dir, vsFile } = inputDir(virtualService('/api'));
  const s = await serve(dir);
  expect(s.firstCompile.ok).toBe(true);

  const sotw = new SotwClient(s.xdsPort, 'envoy-sotw');
  const delta = new DeltaClient(s.xdsPort, 'envoy-delta');
  clients.push(sotw, delta);
  sotw.send({ type_url: T.cluster });
  const cds = await sotw.expect(T.cluster);
  expect(cds.resources.map((c) => `${c.name}:${c.type}`).sort()).toEqual([
    'default-petstore-8080:STRICT_DNS',
    'legacy:EDS',
  ]);
  sotw.ack(cds);
  sotw.send({ type_url: T.endpoint, resource_names: ['legacy'] });
  sotw.ack(await sotw.expect(T.endpoint), ['legacy']);
  sotw.send({ type_url: T.listener });
  const lds = await sotw.expect(T.listener);
  const routeName = lds.resources[0].filter_chains[0].filters[0].typed_config.rds.route_config_name;
  sotw.ack(lds);
  sotw.send({ type_url: T.route, resource_names: [routeName] });
  const rds1 = await sotw.expect(T.route);
  expect(prefixesOf(rds1)).toEqual(['/api', '/legacy']);
  sotw.ack(rds1, [routeName]);
  delta.send({ type_url: T.route, resource_names_subscribe: [routeName] });
  const d1 = await delta.expect(T.route);
  delta.ack(d1);

  // 1. A good edit: both clients get the new routes, and only the routes.
  edit(vsFile, virtualService('/v2'));
  const rds2 = await sotw.expect(T.route);
  expect(prefixesOf(rds2)).toEqual(['/v2', '/legacy']);
  sotw.ack(rds2, [routeName]);
  const d2 = await delta.expect(T.route);
  expect(d2.resources[0].json.virtual_hosts[0].routes[0].match.prefix).toBe('/v2');
  delta.ack(d2);

  // 2. A broken edit (dangling reference): not pushed, errors on the admin port.
  const failed = nextCompile(s, false);
  edit(vsFile, virtualService('/broken', 'nowhere'));
  const outcome = await failed;
  expect(outcome.ok).toBe(false);
  const status = JSON.parse((await http(s.adminPort, '/status')).body);
  const [resource, errors] = Object.entries(status.errors)[0] as [
    string,
    Array<{ text: string; file: string; line: number }>,
  ];
  expect(resource).toBe('VirtualService default/petstore');
  expect(errors[0].file).toBe(vsFile);
  expect(errors[0].text).toMatch(/not found/);
  expect(status.snapshot.version).toBe(s.control.snapshot!.version);
  expect((await http(s.adminPort, '/readyz')).status).toBe(200);
  expect((await http(s.adminPort, '/metrics')).body).toMatch(/^sluice_compile_errors [1-9]/m);

  // 3. The repair is pushed, and it is the next thing each client receives.
  edit(vsFile, virtualService('/repaired'));
  const rds3 = await sotw.expect(T.route);
  expect(prefixesOf(rds3)).toEqual(['/repaired', '/legacy']);
  const d3 = await delta.expect(T.route);
  expect(d3.resources[0].json.virtual_hosts[0].routes[0].match.prefix).toBe('/repaired');
  expect(JSON.parse((await http(s.adminPort, '/status')).body).errors).toEqual({});
  expect(sotw.inbox.pending + delta.inbox.pending).toBe(0);
});

test('status and metrics report connected nodes, ACKs and NACKs per type', async () => {
  const { dir } = inputDir(virtualService('/api'));
  const s = await serve(dir);
  const c = new SotwClient(s.xdsPort, 'envoy-1');
  clients.push(c);
  c.send({ type_url: T.cluster });
  const cds = await c.expect(T.cluster);
  const acked = once(s.xds, 'ack');
  c.ack(cds);
  await acked;
  c.send({ type_url: T.listener });
  const lds = await c.expect(T.listener);
  const nacked = once(s.xds, 'nack');
  c.nack(lds, '', 'listener rejected for the test');
  await nacked;

  const status = JSON.parse((await http(s.adminPort, '/status')).body);
  expect(status.ready).toBe(true);
  expect(status.clients).toHaveLength(1);
  expect(status.clients[0].node.id).toBe('envoy-1');
  expect(status.clients[0].types[T.cluster].acked).toBe(cds.version_info);
  expect(status.clients[0].types[T.listener].nacked).toMatchObject({
    version: lds.version_info,
    errorDetail: { message: 'listener rejected for the test' },
  });
  expect(status.nacks[0]).toMatchObject({ node: 'envoy-1', typeUrl: T.listener, version: lds.version_info });

  const metrics = (await http(s.adminPort, '/metrics')).body;
  expect(metrics).toMatch(/^sluice_xds_connected_clients 1$/m);
  expect(metrics).toMatch(/^sluice_xds_snapshot_version 1$/m);
  expect(metrics).toMatch(/^sluice_xds_nacks_total\{type="envoy.config.listener.v3.Listener"\} 1$/m);
  expect(metrics).toMatch(/^sluice_xds_pushes_total\{type="envoy.config.cluster.v3.Cluster"\} 1$/m);
  expect(metrics).toMatch(/^sluice_compile_duration_seconds_count 1$/m);
  expect(metrics).toMatch(/^sluice_compile_errors 0$/m);
});

test('a first compile that fails: serving, not ready, errors shown; the fix makes it ready and clients get it', async () => {
  const { dir, vsFile } = inputDir(virtualService('/api', 'nowhere'));
  const s = await serve(dir);
  expect(s.firstCompile.ok).toBe(false);
  const readyz = await http(s.adminPort, '/readyz');
  expect(readyz.status).toBe(503);
  expect(JSON.parse(readyz.body).errors[0]).toMatch(/virtualservice\.yaml:\d+: error\[resolve\]/);
  expect((await http(s.adminPort, '/healthz')).status).toBe(200);

  // A client that connects now waits for the first snapshot.
  const c = new SotwClient(s.xdsPort);
  clients.push(c);
  c.send({ type_url: T.cluster });
  edit(vsFile, virtualService('/api'));
  const cds = await c.expect(T.cluster);
  expect(cds.resources.map((r) => r.name)).toContain('default-petstore-8080');
  expect((await http(s.adminPort, '/readyz')).status).toBe(200);
});

test('the binary: serve on ephemeral ports, SIGTERM closes streams and exits 0', async () => {
  const { dir } = inputDir(virtualService('/api'));
  const child = spawn(process.execPath, ['bin/sluice.js', 'serve', '-f', dir, '--xds-port', '0', '--admin-port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  try {
    let ports: { xds: number; admin: number } | undefined;
    for await (const line of createInterface({ input: child.stdout! })) {
      const log = JSON.parse(line);
      if (log.msg === 'sluice serve listening') {
        ports = { xds: Number(log.xds.split(':')[1]), admin: Number(log.admin.split(':')[1]) };
        break;
      }
    }
    expect(ports).toBeDefined();
    expect((await http(ports!.admin, '/readyz')).status).toBe(200);
    const c = new SotwClient(ports!.xds);
    clients.push(c);
    c.send({ type_url: T.listener });
    await c.expect(T.listener);
    child.kill('SIGTERM');
    expect((await c.finished).code).toBe(0);
    const [code] = await exited;
    expect(code).toBe(0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

test('the binary: `sluice bootstrap` prints a verified ADS bootstrap', () => {
  const out = execFileSync(
    process.execPath,
    [
      'bin/sluice.js',
      'bootstrap',
      '--xds-address',
      '127.0.0.1:18000',
      '--node-id',
      'envoy-7',
      '--listener-port',
      '8080',
    ],
    { encoding: 'utf8' },
  );
  const bootstrap = parse(out);
  expect(verifyBootstrap(bootstrap)).toEqual([]);
  expect(bootstrap.node.id).toBe('envoy-7');
  expect(bootstrap.dynamic_resources.ads_config.grpc_services[0].envoy_grpc.cluster_name).toBe('xds_cluster');
  expect(
    bootstrap.static_resources.clusters[0].load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address,
  ).toEqual({ address: '127.0.0.1', port_value: 18000 });
  expect(bootstrap.node.metadata).toEqual({ 'sluice.listener_port': 8080 });
  // --proxy: the proxy of a fleet, in node metadata `role`, where Gloo's bootstrap puts it.
  const edge = parse(
    execFileSync(
      process.execPath,
      ['bin/sluice.js', 'bootstrap', '--xds-address', '127.0.0.1:18000', '--node-id', 'edge-1', '--proxy', 'external'],
      { encoding: 'utf8' },
    ),
  );
  expect(verifyBootstrap(edge)).toEqual([]);
  expect(edge.node.metadata).toEqual({ role: 'external' });
});
