/**
 * `serve --kube` against a real cluster: runs when KUBECONFIG is set and
 * `kubectl` reaches its API server (a kind or k3d cluster on this machine,
 * say); otherwise says so and skips. It installs Sluice's CRDs
 * (deploy/kubernetes/crds/sluice.yaml), works in a namespace of its own
 * (deleted at the end), and checks through a real ADS client that a Service
 * with its EndpointSlice and a VirtualService reach serve, and that an edit
 * made with client-node does.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { CoreV1Api, CustomObjectsApi, DiscoveryV1Api, KubeConfig } from '@kubernetes/client-node';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { startServe, type Serving } from '../../control-plane/run.js';
import { testLogger } from '../../harness/log-check.js';
import { SotwClient, type Response } from '../../harness/xds-client.js';
import { TYPE_URL as T } from '../xds/fixtures.js';

/** Why the test cannot run here, or undefined when a cluster answers. */
function noClusterReason(): string | undefined {
  if (!process.env.KUBECONFIG) return 'KUBECONFIG is not set';
  try {
    execFileSync('kubectl', ['get', '--raw', '/version'], { stdio: 'pipe', timeout: 15_000 });
    return undefined;
  } catch (error) {
    return `kubectl does not reach the cluster of KUBECONFIG (${(error as Error).message.split('\n')[0]})`;
  }
}

const reason = noClusterReason();
if (reason) {
  console.log(
    `test/kubernetes/real-cluster.test.ts skipped: ${reason}. Set KUBECONFIG to a test cluster to run serve --kube against a real API server.`,
  );
}
const describeWithCluster = reason ? describe.skip : describe;

describeWithCluster('serve --kube against a real cluster', () => {
  const namespace = `sluice-e2e-${randomBytes(3).toString('hex')}`;
  let serving: Serving | undefined;
  let client: SotwClient | undefined;

  beforeAll(() => {
    execFileSync('kubectl', ['apply', '-f', 'deploy/kubernetes/crds/sluice.yaml'], { stdio: 'pipe' });
    execFileSync('kubectl', ['wait', '--for=condition=Established', 'crd', '-l', 'app.kubernetes.io/part-of=sluice'], {
      stdio: 'pipe',
    });
    execFileSync('kubectl', ['create', 'namespace', namespace], { stdio: 'pipe' });
  });
  afterAll(async () => {
    client?.close();
    await serving?.close();
    execFileSync('kubectl', ['delete', 'namespace', namespace, '--wait=false'], { stdio: 'pipe' });
  });

  test('a Service, its EndpointSlice and a VirtualService reach an ADS client; an edit follows', async () => {
    const config = new KubeConfig();
    config.loadFromDefault();
    const core = config.makeApiClient(CoreV1Api);
    const discovery = config.makeApiClient(DiscoveryV1Api);
    const custom = config.makeApiClient(CustomObjectsApi);
    await core.createNamespacedService({
      namespace,
      body: { metadata: { name: 'shop' }, spec: { ports: [{ name: 'http', port: 8080 }] } },
    });
    await discovery.createNamespacedEndpointSlice({
      namespace,
      body: {
        metadata: { name: 'shop-1', labels: { 'kubernetes.io/service-name': 'shop' } },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['10.77.0.1'], conditions: { ready: true } }],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
    });
    const virtualService = (prefix: string) => ({
      apiVersion: 'gateway.gateway.example/v1',
      kind: 'VirtualService',
      metadata: { name: 'shop', namespace },
      spec: {
        virtualHost: {
          domains: ['shop.example'],
          routes: [
            {
              matchers: [{ prefix }],
              routeAction: { single: { upstream: { name: `${namespace}-shop-8080`, namespace: 'sluice-system' } } },
            },
          ],
        },
      },
    });
    await custom.createNamespacedCustomObject({
      group: 'gateway.gateway.example',
      version: 'v1',
      plural: 'virtualservices',
      namespace,
      body: virtualService('/first'),
    });

    serving = await startServe({
      paths: [],
      kube: { namespaces: [namespace] },
      compileOptions: DEFAULT_OPTIONS,
      host: '127.0.0.1',
      xdsPort: 0,
      adminPort: 0,
      logger: testLogger(),
    });
    expect(serving.firstCompile.ok).toBe(true);
    client = new SotwClient(serving.xdsPort, 'real-cluster');
    client.send({ type_url: T.cluster });
    const clusters = await client.expect(T.cluster);
    expect(clusters.resources.map((c) => c.name)).toContain(`${namespace}-shop-8080`);
    client.ack(clusters);
    client.send({ type_url: T.listener });
    const lds = await client.expect(T.listener);
    client.ack(lds);
    const routeName = lds.resources[0].filter_chains[0].filters[0].typed_config.rds.route_config_name;
    client.send({ type_url: T.route, resource_names: [routeName] });
    const prefixes = (r: Response) =>
      r.resources[0].virtual_hosts.flatMap((v: any) => v.routes.map((x: any) => x.match.prefix));
    const first = await client.expect(T.route);
    expect(prefixes(first)).toEqual(['/first']);
    client.ack(first, [routeName]);

    const current: any = await custom.getNamespacedCustomObject({
      group: 'gateway.gateway.example',
      version: 'v1',
      plural: 'virtualservices',
      namespace,
      name: 'shop',
    });
    await custom.replaceNamespacedCustomObject({
      group: 'gateway.gateway.example',
      version: 'v1',
      plural: 'virtualservices',
      namespace,
      name: 'shop',
      body: { ...virtualService('/second'), metadata: current.metadata },
    });
    expect(prefixes(await client.expect(T.route))).toEqual(['/second']);
  });
});
