/**
 * `npm run bench -- kube`: `serve --kube` against the API server double
 * (harness/kube-apiserver.ts) holding 10,000 VirtualServices and 2,000
 * Services with 20,000 endpoints (ten per Service, in EndpointSlices),
 * across 20 namespaces. serve runs in a process of its own (its RSS is its
 * own) and reaches the double over HTTP with @kubernetes/client-node, as in
 * a cluster: paged lists, then watches. Measured:
 * - initial sync to first snapshot: from starting serve to its first
 *   snapshot (every kind listed, compiled, encoded);
 * - one endpoint change to an ADS client: 50 times, one Service's
 *   EndpointSlice gets a new address in the double; the time until a real
 *   gRPC ADS client (subscribed to CDS, LDS, RDS and every EDS cluster, as
 *   Envoy is) receives the EndpointSlice's cluster with it (p50, p99): the
 *   response's arrival at the client; and, as a second figure, until the
 *   client has decoded every assignment of it into JSON (a state-of-the-world
 *   response carries all 2,000, which the JavaScript client takes tens of
 *   ms to decode: the client's cost, not the server's);
 * - serve's RSS after the changes, and its peak.
 * Peer, in the same run: `serve -f` on the same objects written as files
 * (what `kubectl get -o yaml` exports), its first snapshot and the same 50
 * changes made by rewriting the EndpointSlice's file. Ratio = kube / files.
 * Targets: p50 under 100 ms, sync under 5 s, RSS under 600 MiB.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dump } from 'js-yaml';
import { pino } from 'pino';
import { TYPE_URL } from '../contract/names.js';
import { DEFAULT_OPTIONS } from '../compiler/translate/output.js';
import { serveEnvironment } from '../control-plane/memory.js';
import { startServe } from '../control-plane/run.js';
import { crdTypesFor } from '../harness/kube-crds.js';
import { KubeApiServer, type KubeObject } from '../harness/kube-apiserver.js';
import { SotwClient, type Response } from '../harness/xds-client.js';

const SERVE_FLAG = '--kube-serve';
/** `--virtual-services=N`, `--services=N`: a smaller run, to try the benchmark out. */
const flag = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const VIRTUAL_SERVICES = flag('virtual-services', 10_000);
export const SERVICES = flag('services', 2_000);
const ENDPOINTS_PER_SERVICE = 10;
const NAMESPACES = 20;
export const ROUNDS = 50;
const INSTALL = DEFAULT_OPTIONS.controlPlaneNamespace;

const namespaceOf = (svc: number) => `team-${svc % NAMESPACES}`;
export const clusterOf = (svc: number) => `${namespaceOf(svc)}-svc-${svc}-8080`;

export function serviceObject(svc: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: `svc-${svc}`, namespace: namespaceOf(svc) },
    spec: { selector: { app: `svc-${svc}` }, ports: [{ name: 'http', port: 8080, targetPort: 8080, protocol: 'TCP' }] },
  };
}

/** The Service's EndpointSlice; round `r` > 0 gives its first endpoint a new address. */
export function sliceObject(svc: number, round = 0): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `svc-${svc}-abcde`,
      namespace: namespaceOf(svc),
      labels: { 'kubernetes.io/service-name': `svc-${svc}` },
    },
    addressType: 'IPv4',
    endpoints: Array.from({ length: ENDPOINTS_PER_SERVICE }, (_, j) => ({
      addresses: [j === 0 && round > 0 ? `10.250.${round}.${svc % 250}` : `10.${1 + (svc >> 8)}.${svc & 255}.${j + 1}`],
      conditions: { ready: true, serving: true, terminating: false },
    })),
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  };
}

function virtualServiceObject(i: number): KubeObject {
  const svc = i % SERVICES;
  return {
    apiVersion: 'gateway.solo.io/v1',
    kind: 'VirtualService',
    metadata: { name: `vs-${i}`, namespace: namespaceOf(svc) },
    spec: {
      virtualHost: {
        domains: [`vs-${i}.example.com`],
        routes: [
          {
            matchers: [{ prefix: '/' }],
            routeAction: { single: { upstream: { name: clusterOf(svc), namespace: INSTALL } } },
          },
        ],
      },
    },
  };
}

// ------------------------------------------------------------------ serve (child process)

interface Ready {
  event: 'ready';
  xdsPort: number;
  syncMs: number;
  compileMs: number;
}

async function serveMain(mode: 'kube' | 'files', input: string): Promise<void> {
  const started = performance.now();
  const serving = await startServe({
    paths: mode === 'files' ? [input] : [],
    ...(mode === 'kube' ? { kube: { kubeconfig: input } } : {}),
    compileOptions: DEFAULT_OPTIONS,
    host: '127.0.0.1',
    xdsPort: 0,
    adminPort: 0,
    logger: pino({ level: 'silent' }),
  });
  if (!serving.firstCompile.ok) throw new Error(`the first compile failed: ${JSON.stringify(serving.firstCompile)}`);
  const ready: Ready = {
    event: 'ready',
    xdsPort: serving.xdsPort,
    syncMs: performance.now() - started,
    compileMs: serving.firstCompile.durationMs,
  };
  process.send!(ready);
  process.on('message', async () => {
    const rss = process.memoryUsage().rss;
    const peakRss = process.resourceUsage().maxRSS * 1024;
    process.send!({ event: 'memory', rss, peakRss });
    await serving.close();
    process.exit(0);
  });
}

// ------------------------------------------------------------------ parent

interface Figures {
  syncMs: number;
  compileMs: number;
  /** From the change to the response's arrival at the client. */
  p50: number;
  p99: number;
  /** From the change to the client's having decoded every resource of the response. */
  decodedP50: number;
  decodedP99: number;
  rss: number;
  peakRss: number;
}

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const mib = (bytes: number) => (bytes / (1 << 20)).toFixed(0);

export function hasAddress(response: Response, cluster: string, address: string): boolean {
  const assignment = response.resources.find((r) => r.cluster_name === cluster);
  return !!assignment?.endpoints?.some((l: any) =>
    l.lb_endpoints.some((e: any) => e.endpoint.address.socket_address.address === address),
  );
}

/** One serve (kube or files) in its own process: sync, 50 endpoint changes seen by an ADS client, memory. */
async function measure(mode: 'kube' | 'files', input: string, change: (round: number) => void): Promise<Figures> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [SERVE_FLAG, mode, input], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: serveEnvironment(),
  });
  const [ready] = (await once(child, 'message')) as [Ready];
  process.stderr.write(`serve (${mode}) ready in ${ready.syncMs.toFixed(0)} ms; subscribing\n`);
  const client = new SotwClient(ready.xdsPort, `bench-${mode}`);
  client.send({ type_url: TYPE_URL.cluster });
  const clusters = await client.expect(TYPE_URL.cluster);
  client.ack(clusters);
  // As Envoy does: the endpoints of every EDS cluster.
  const watched = clusters.resources.filter((c) => c.type === 'EDS').map((c) => c.name);
  client.send({ type_url: TYPE_URL.endpoint, resource_names: watched });
  client.ack(await client.expect(TYPE_URL.endpoint), watched);
  client.send({ type_url: TYPE_URL.listener });
  const lds = await client.expect(TYPE_URL.listener);
  client.ack(lds);
  const routeName = lds.resources[0].filter_chains[0].filters[0].typed_config.rds.route_config_name;
  client.send({ type_url: TYPE_URL.route, resource_names: [routeName] });
  client.ack(await client.expect(TYPE_URL.route), [routeName]);

  process.stderr.write(`serve (${mode}): subscribed; ${ROUNDS} endpoint changes\n`);
  const latencies: number[] = [];
  const decoded: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const svc = round;
    const address = `10.250.${round}.${svc % 250}`;
    const started = performance.now();
    change(round);
    for (;;) {
      const response = await client.next();
      client.ack(response, response.type_url === TYPE_URL.endpoint ? watched : [routeName]);
      if (response.type_url !== TYPE_URL.endpoint || !hasAddress(response, clusterOf(svc), address)) continue;
      decoded.push(performance.now() - started);
      latencies.push(client.arrivedAt[client.inbox.all.lastIndexOf(response)] - started);
      break;
    }
  }
  client.close();
  child.send({ cmd: 'memory' });
  const [memory] = (await once(child, 'message')) as [{ rss: number; peakRss: number }];
  await once(child, 'exit');
  latencies.sort((a, b) => a - b);
  decoded.sort((a, b) => a - b);
  return {
    syncMs: ready.syncMs,
    compileMs: ready.compileMs,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    decodedP50: percentile(decoded, 0.5),
    decodedP99: percentile(decoded, 0.99),
    rss: memory.rss,
    peakRss: memory.peakRss,
  };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-bench-kube-'));
  const double = await KubeApiServer.start({ types: crdTypesFor() });
  try {
    const services: KubeObject[] = [];
    const slices: KubeObject[] = [];
    const virtualServices: KubeObject[] = [];
    for (let s = 0; s < SERVICES; s++) {
      services.push(double.put(serviceObject(s)));
      slices.push(double.put(sliceObject(s)));
    }
    for (let i = 0; i < VIRTUAL_SERVICES; i++) virtualServices.push(double.put(virtualServiceObject(i)));
    const kubeconfig = path.join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, double.kubeconfigYaml());

    // The same objects as files; each EndpointSlice the rounds change in a file of its own.
    const files = path.join(dir, 'files');
    const yaml = (objects: KubeObject[]) => objects.map((o) => dump(o, { noRefs: true })).join('---\n');
    const sliceFile = (svc: number) => path.join(files, `slice-${svc}.yaml`);
    mkdirSync(files);
    writeFileSync(path.join(files, 'services.yaml'), yaml(services));
    writeFileSync(path.join(files, 'virtualservices.yaml'), yaml(virtualServices));
    writeFileSync(path.join(files, 'slices.yaml'), yaml(slices.slice(ROUNDS + 1)));
    for (let s = 0; s <= ROUNDS; s++) writeFileSync(sliceFile(s), yaml([slices[s]]));

    console.log(
      `${VIRTUAL_SERVICES} VirtualServices, ${SERVICES} Services, ${SERVICES * ENDPOINTS_PER_SERVICE} endpoints in ${NAMESPACES} namespaces; ${ROUNDS} endpoint changes`,
    );
    const filesFigures = await measure('files', files, (round) => {
      writeFileSync(`${sliceFile(round)}.tmp`, yaml([sliceObject(round, round)]));
      renameSync(`${sliceFile(round)}.tmp`, sliceFile(round));
    });
    const kube = await measure('kube', kubeconfig, (round) => double.put(sliceObject(round, round)));

    console.log(
      'source       | first snapshot (compile) | endpoint change p50 | p99    | decoded p50 | p99   | RSS after | peak RSS',
    );
    for (const [name, f] of [
      ['kube (watch)', kube],
      ['files (peer)', filesFigures],
    ] as const) {
      console.log(
        `${name} | ${f.syncMs.toFixed(0).padStart(8)} ms (${f.compileMs.toFixed(0)} ms) | ${f.p50.toFixed(1).padStart(8)} ms | ${f.p99.toFixed(1).padStart(6)} ms | ${f.decodedP50.toFixed(1).padStart(8)} ms | ${f.decodedP99.toFixed(1).padStart(6)} ms | ${mib(f.rss)} MiB | ${mib(f.peakRss)} MiB`,
      );
    }
    console.log(
      `ratio kube / files: first snapshot ${(kube.syncMs / filesFigures.syncMs).toFixed(2)}x, endpoint change p50 ${(kube.p50 / filesFigures.p50).toFixed(2)}x`,
    );
    const [load1, load5] = loadavg();
    console.log(`load average at the end: ${load1.toFixed(1)} (1 min), ${load5.toFixed(1)} (5 min)`);
    console.log(
      `targets: endpoint change p50 under 100 ms: ${kube.p50 < 100 ? 'met' : 'NOT met'}; sync under 5 s: ${kube.syncMs < 5000 ? 'met' : 'NOT met'}; serve RSS under 600 MiB: ${kube.peakRss < 600 * (1 << 20) ? 'met' : 'NOT met'} (peak)`,
    );
  } finally {
    await double.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === SERVE_FLAG) await serveMain(process.argv[3] as 'kube' | 'files', process.argv[4]);
