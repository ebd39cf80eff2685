/**
 * `serve --kube` against a real cluster: runs when KUBECONFIG is set and
 * `kubectl` reaches its API server (a kind or k3d cluster on this machine,
 * say); otherwise says so and skips. It installs Sluice's CRDs
 * (deploy/kubernetes/crds/sluice.yaml), works in a namespace of its own
 * (deleted at the end; serve's install namespace too, where its status
 * Lease is), and checks through a real ADS client that a Service with its
 * EndpointSlice and a VirtualService reach serve, that an EndpointSlice
 * edit reaches the client's EDS and a VirtualService edit its routes, and
 * that the VirtualService's status subresource says Accepted, then Rejected
 * with the message for a broken edit (the last good routes staying served).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { CoreV1Api, CustomObjectsApi, DiscoveryV1Api, KubeConfig } from '@kubernetes/client-node';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { startServe, type Serving } from '../../control-plane/run.js';
import { testLogger } from '../../harness/log-check.js';
import { SotwClient, type Response } from '../../harness/xds-client.js';
import { TYPE_URL as T } from '../xds/fixtures.js';

/** Polls `probe` until it gives a value (the API server's state, which nothing announces to the test). */
async function until<V>(what: string, probe: () => Promise<V | undefined | false>, limitMs = 60_000): Promise<V> {
  const end = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

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

  test('a Service, its EndpointSlice and a VirtualService reach an ADS client; edits follow; status is written', async () => {
    const config = new KubeConfig();
    config.loadFromDefault();
    const core = config.makeApiClient(CoreV1Api);
    const discovery = config.makeApiClient(DiscoveryV1Api);
    const custom = config.makeApiClient(CustomObjectsApi);
    await core.createNamespacedService({
      namespace,
      body: { metadata: { name: 'shop' }, spec: { ports: [{ name: 'http', port: 8080 }] } },
    });
    const slice = (address: string) => ({
      metadata: { name: 'shop-1', labels: { 'kubernetes.io/service-name': 'shop' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [address], conditions: { ready: true } }],
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    });
    await discovery.createNamespacedEndpointSlice({ namespace, body: slice('10.77.0.1') });
    const cluster = `${namespace}-shop-8080`;
    const virtualService = (prefix: string, upstream = cluster) => ({
      apiVersion: 'gateway.gateway.example/v1',
      kind: 'VirtualService',
      metadata: { name: 'shop', namespace },
      spec: {
        virtualHost: {
          domains: ['shop.example'],
          routes: [
            {
              matchers: [{ prefix }],
              // The test's namespace is serve's install namespace too: discovered upstreams are there.
              routeAction: { single: { upstream: { name: upstream, namespace } } },
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
      status: { lease: 'sluice-status', identity: 'real-cluster-test' },
      compileOptions: { ...DEFAULT_OPTIONS, controlPlaneNamespace: namespace },
      host: '127.0.0.1',
      xdsPort: 0,
      adminPort: 0,
      logger: testLogger(),
    });
    expect(serving.firstCompile.ok).toBe(true);
    client = new SotwClient(serving.xdsPort, 'real-cluster');
    client.send({ type_url: T.cluster });
    const clusters = await client.expect(T.cluster);
    expect(clusters.resources.map((c) => c.name)).toContain(cluster);
    client.ack(clusters);
    client.send({ type_url: T.endpoint, resource_names: [cluster] });
    const addresses = (r: Response) =>
      r.resources[0].endpoints.flatMap((l: any) =>
        l.lb_endpoints.map((e: any) => e.endpoint.address.socket_address.address),
      );
    const endpoints = await client.expect(T.endpoint);
    expect(addresses(endpoints)).toEqual(['10.77.0.1']);
    client.ack(endpoints, [cluster]);
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

    // An endpoint change: the slice's address replaced, as the EndpointSlice controller does.
    const currentSlice = await discovery.readNamespacedEndpointSlice({ name: 'shop-1', namespace });
    await discovery.replaceNamespacedEndpointSlice({
      name: 'shop-1',
      namespace,
      body: { ...slice('10.77.0.2'), metadata: currentSlice.metadata },
    });
    const moved = await client.expect(T.endpoint);
    expect(addresses(moved)).toEqual(['10.77.0.2']);
    client.ack(moved, [cluster]);

    const object = {
      group: 'gateway.gateway.example',
      version: 'v1',
      plural: 'virtualservices',
      namespace,
      name: 'shop',
    };
    const status = async () => ((await custom.getNamespacedCustomObject(object)) as any).status?.statuses?.[namespace];
    const accepted = await until('the Accepted status', async () => (await status())?.state === 'Accepted' && status());
    expect(accepted).toEqual({ state: 'Accepted', reportedBy: 'sluice', observedGeneration: 1 });

    const replace = async (body: object) => {
      const current: any = await custom.getNamespacedCustomObject(object);
      await custom.replaceNamespacedCustomObject({ ...object, body: { ...body, metadata: current.metadata } });
    };
    await replace(virtualService('/second'));
    const second = await client.expect(T.route);
    expect(prefixes(second)).toEqual(['/second']);
    client.ack(second, [routeName]);

    // A broken edit: Rejected with the CLI's message naming the object and field; the last good routes stay.
    await replace(virtualService('/third', 'nowhere'));
    const rejected = await until('the Rejected status', async () => (await status())?.state === 'Rejected' && status());
    expect(rejected.observedGeneration).toBe(3);
    expect(rejected.reason).toMatch(
      /^error\[resolve\]: VirtualService [^/]+\/shop: spec\.virtualHost\.routes\[0\]\.routeAction\.single\.upstream: Upstream [^/]+\/nowhere not found/,
    );
    expect(serving.control.snapshot!.type(T.route)!.version).toBe(second.version_info);
  });
});
