/**
 * A running serve for the status page and `sluice check` tests: real files,
 * the real pipeline, real gRPC ADS clients (an Envoy that ACKs, one that
 * NACKs its clusters with Envoy's kind of error text) and a real
 * sluice-extauth fed over xDS by the same serve.
 */
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CompileOutcome } from '../../control-plane/control.js';
import { startServe, type Serving } from '../../control-plane/run.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { TYPE_URL } from '../../contract/names.js';
import { startExtauth, type RunningExtauth } from '../../extauth-server/server.js';
import { testLogger } from '../../harness/log-check.js';
import { tempDir } from '../../harness/temp-dir.js';
import { SotwClient, type Response } from '../../harness/xds-client.js';

/** Envoy's own words for a cluster it refuses, with markup in it: the page must show it as text. */
export const NACK_TEXT =
  'Proto constraint validation failed (ClusterValidationError.LbPolicy: value must be one of the defined enum values) <script>window.injected = 1</script>';

export const SERVICES = `apiVersion: v1
kind: Service
metadata: {name: petstore, namespace: default}
spec:
  ports: [{port: 8080}, {port: 9090}]
`;

/** A VirtualService to the petstore Service; another `port` is another cluster. */
export function virtualService(prefix: string, port = 8080): string {
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
            kube: {ref: {name: petstore, namespace: default}, port: ${port}}
`;
}

/** Writes through a temporary file and a rename, as editors do. */
export function edit(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

export function nextCompile(serving: Serving, ok: boolean): Promise<CompileOutcome> {
  return new Promise((resolve) => {
    const on = (o: CompileOutcome) => {
      if (o.ok !== ok) return;
      serving.control.off('compiled', on);
      resolve(o);
    };
    serving.control.on('compiled', on);
  });
}

export interface StatusScene {
  serving: Serving;
  dir: string;
  vsFile: string;
  /** ACKs what it is sent, when the test says so. */
  good: SotwClient;
  nacking: SotwClient;
  extauth: RunningExtauth;
  close(): Promise<void>;
}

/** Resolves once `predicate` holds for serve's /status, asked again every 50 ms (60 s at most: a machine busy with other tests is slow). */
export async function statusWhen(adminPort: number, predicate: (status: any) => boolean): Promise<any> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = await (await fetch(`http://127.0.0.1:${adminPort}/status`)).json();
    if (predicate(status)) return status;
    if (Date.now() > deadline) throw new Error(`/status never got there; last:\n${JSON.stringify(status, null, 2)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** serve on a VirtualService and a Service, the two Envoys on CDS and the sidecar, each settled. */
export async function startScene(): Promise<StatusScene> {
  const dir = tempDir('status');
  writeFileSync(path.join(dir, 'services.yaml'), SERVICES);
  const vsFile = path.join(dir, 'virtualservice.yaml');
  writeFileSync(vsFile, virtualService('/api'));
  const serving = await startServe({
    paths: [dir],
    compileOptions: DEFAULT_OPTIONS,
    host: '127.0.0.1',
    xdsPort: 0,
    adminPort: 0,
    logger: testLogger(),
    debounceMs: 20,
  });
  const good = new SotwClient(serving.xdsPort, 'envoy-good');
  const nacking = new SotwClient(serving.xdsPort, 'envoy-<b>nacking</b>');
  good.send({ type_url: TYPE_URL.cluster });
  good.ack(await good.expect(TYPE_URL.cluster));
  nacking.send({ type_url: TYPE_URL.cluster });
  const refused: Response = await nacking.expect(TYPE_URL.cluster);
  nacking.nack(refused, '', NACK_TEXT);
  const extauth = await startExtauth({
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    xds: `127.0.0.1:${serving.xdsPort}`,
    nodeId: 'extauth-1',
    logger: testLogger(),
  });
  await statusWhen(
    serving.adminPort,
    (s) =>
      s.sidecars.length === 1 &&
      s.sidecars[0].ready &&
      s.proxies[0].envoys.some((e: any) => e.types[0]?.nacked) &&
      s.proxies[0].envoys.some((e: any) => e.types[0]?.upToDate),
  );
  return {
    serving,
    dir,
    vsFile,
    good,
    nacking,
    extauth,
    async close() {
      good.close();
      nacking.close();
      await extauth.close();
      await serving.close();
    },
  };
}
