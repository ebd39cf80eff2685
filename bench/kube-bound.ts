/**
 * `npm run bench -- kube-bound`: the floor under `bench kube`'s endpoint
 * change. The same API server double with the same 2,000 Services'
 * EndpointSlices, the same informer (list, then watch, through
 * @kubernetes/client-node) in a process of its own, and the same xDS server
 * and real gRPC ADS client subscribed to the 2,000 EDS clusters; but no
 * compile at all: each watch event of a slice becomes its cluster's
 * ClusterLoadAssignment directly (its addresses, port 8080), set at once as
 * the one type of a new snapshot, with no quiet period, no validation, no
 * resolve, translate or verify, no status page or log. What `bench kube`
 * measures above this is the compiler's and the control loop's.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { TYPE_URL } from '../contract/names.js';
import { emptyXdsSet, type Json } from '../compiler/translate/output.js';
import { SnapshotCache } from '../control-plane/cache/cache.js';
import { SnapshotEncoder } from '../control-plane/cache/snapshot.js';
import { connect } from '../control-plane/kube/client.js';
import { Informer } from '../control-plane/kube/informer.js';
import { watchedKinds } from '../control-plane/kube/kinds.js';
import { serveEnvironment } from '../control-plane/memory.js';
import { XdsServer } from '../control-plane/server/server.js';
import { KubeApiServer } from '../harness/kube-apiserver.js';
import { SotwClient } from '../harness/xds-client.js';
import { clusterOf, hasAddress, percentile, ROUNDS, SERVICES, serviceObject, sliceObject } from './kube.js';

const BARE_FLAG = '--kube-bare';

type Slice = Record<string, any>;

/** A slice as its cluster's assignment, with nothing checked: one locality, each address on port 8080. */
function assignment(slice: Slice): [string, Json] {
  const cluster = `${slice.metadata.namespace}-${slice.metadata.labels['kubernetes.io/service-name']}-8080`;
  return [
    cluster,
    {
      cluster_name: cluster,
      endpoints: [
        {
          lb_endpoints: (slice.endpoints as Slice[]).map((e) => ({
            endpoint: { address: { socket_address: { address: e.addresses[0], port_value: 8080 } } },
          })),
        },
      ],
    },
  ];
}

/** The bare informer and xDS server (child process). */
async function bareMain(kubeconfig: string): Promise<void> {
  const logger = pino({ level: 'silent' });
  const endpoints = new Map<string, Json>();
  const cache = new SnapshotCache();
  const encoder = new SnapshotEncoder();
  const publish = () => cache.setSnapshot(encoder.build({ ...emptyXdsSet(), endpoints: new Map(endpoints) }));
  let synced = false;
  const kind = watchedKinds().find((k) => k.kind === 'EndpointSlice')!;
  await new Promise<void>((resolve) => {
    const informer = new Informer(
      connect(kubeconfig),
      kind,
      undefined,
      {
        upsert: (_key, slice) => {
          endpoints.set(...assignment(slice));
          if (synced) publish();
        },
        remove: () => undefined,
        listed: () => {
          if (synced) return;
          synced = true;
          publish();
          resolve();
        },
      },
      logger,
    );
    void informer.run();
  });
  const xds = new XdsServer(cache, logger);
  const xdsPort = await xds.listen('127.0.0.1', 0);
  process.send!({ event: 'ready', xdsPort });
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-bench-kube-bound-'));
  const double = await KubeApiServer.start();
  let child: ChildProcess | undefined;
  try {
    for (let s = 0; s < SERVICES; s++) {
      double.put(serviceObject(s));
      double.put(sliceObject(s));
    }
    const kubeconfig = path.join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, double.kubeconfigYaml());
    child = fork(fileURLToPath(import.meta.url), [BARE_FLAG, kubeconfig], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      env: serveEnvironment(),
    });
    const [ready] = (await once(child, 'message')) as [{ xdsPort: number }];
    const client = new SotwClient(ready.xdsPort, 'bench-bound');
    const names = Array.from({ length: SERVICES }, (_, s) => clusterOf(s));
    client.send({ type_url: TYPE_URL.endpoint, resource_names: names });
    client.ack(await client.expect(TYPE_URL.endpoint), names);

    const arrived: number[] = [];
    const decoded: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const address = `10.250.${round}.${round % 250}`;
      const started = performance.now();
      double.put(sliceObject(round, round));
      for (;;) {
        const response = await client.next();
        client.ack(response, names);
        if (!hasAddress(response, clusterOf(round), address)) continue;
        decoded.push(performance.now() - started);
        arrived.push(client.arrivedAt[client.inbox.all.lastIndexOf(response)] - started);
        break;
      }
    }
    client.close();
    arrived.sort((a, b) => a - b);
    decoded.sort((a, b) => a - b);
    const ms = (v: number) => `${v.toFixed(1)} ms`;
    console.log(`${SERVICES} EndpointSlices watched, ${SERVICES} EDS clusters subscribed; ${ROUNDS} endpoint changes`);
    console.log('bare informer -> push | endpoint change p50 | p99 | decoded p50 | p99');
    console.log(
      `no compile | ${ms(percentile(arrived, 0.5))} | ${ms(percentile(arrived, 0.99))} | ${ms(percentile(decoded, 0.5))} | ${ms(percentile(decoded, 0.99))}`,
    );
    const [load1, load5] = loadavg();
    console.log(`load average at the end: ${load1.toFixed(1)} (1 min), ${load5.toFixed(1)} (5 min)`);
  } finally {
    child?.kill();
    await double.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === BARE_FLAG) await bareMain(process.argv[3]);
