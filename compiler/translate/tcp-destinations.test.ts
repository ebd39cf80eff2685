import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatDiagnostic } from '../diagnostics.js';
import { compileFiles } from '../pipeline.js';
import { DEFAULT_OPTIONS, type Json } from './output.js';

const tcpProxies = (listener: Json) =>
  Object.fromEntries(
    (listener.filter_chains as Json[]).map((c) => {
      const proxy = (c.filters as Json[]).find((f) => f.name === 'envoy.filters.network.tcp_proxy')!;
      const { '@type': _type, stat_prefix: _prefix, ...rest } = proxy.typed_config as Json;
      return [c.name as string, rest];
    }),
  );
const lb = (labels: Record<string, string>) => ({ metadata_match: { filter_metadata: { 'envoy.lb': labels } } });

test("a TCP host's destination: a Service port's cluster, a subset as metadata_match, weighted destinations and an UpstreamGroup as weighted_clusters", async () => {
  const result = await compileFiles(['golden/gateway-tcp-destinations/input'], DEFAULT_OPTIONS);
  expect(result.diagnostics.map(formatDiagnostic)).toEqual([]);
  expect(tcpProxies(result.xds!.listeners.get('listener-::-9000')!)).toEqual({
    cache: { cluster: 'data-cache-6379' },
    'db-primary': { cluster: 'db', ...lb({ role: 'primary' }) },
    mq: {
      weighted_clusters: {
        clusters: [
          { name: 'mq', weight: 9 },
          { name: 'data-mq-next-5671', weight: 1 },
        ],
      },
    },
    reads: {
      weighted_clusters: {
        clusters: [
          { name: 'db', weight: 3, ...lb({ role: 'replica' }) },
          { name: 'db', weight: 1, ...lb({ role: 'primary' }) },
        ],
      },
    },
  });
  // Every cluster a destination names is served.
  expect([...result.xds!.clusters.keys()].sort()).toEqual(['data-cache-6379', 'data-mq-next-5671', 'db', 'mq']);
});

test('the same destinations on a MatchableTcpGateway a hybrid Gateway delegates to', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-tcp-destinations-'));
  try {
    writeFileSync(
      path.join(dir, 'gateway.yaml'),
      `apiVersion: gateway.solo.io/v1
kind: Gateway
metadata: {name: hybrid, namespace: gloo-system}
spec:
  bindPort: 9100
  hybridGateway:
    delegatedTcpGateways: {selector: {labels: {tier: data}}}
---
apiVersion: gateway.solo.io/v1
kind: MatchableTcpGateway
metadata: {name: mq, namespace: data, labels: {tier: data}}
spec:
  tcpGateway:
    tcpHosts:
      - name: mq
        destination:
          multi:
            destinations:
              - {weight: 2, destination: {kube: {ref: {name: cache}, port: 6379}}}
              - {weight: 1, destination: {upstream: {name: mq}}}
`,
    );
    const result = await compileFiles(
      [path.join(dir, 'gateway.yaml'), 'golden/gateway-tcp-destinations/input/resources.yaml'],
      DEFAULT_OPTIONS,
    );
    expect(result.diagnostics.map(formatDiagnostic)).toEqual([]);
    expect(tcpProxies(result.xds!.listeners.get('listener-::-9100')!)).toEqual({
      mq: {
        weighted_clusters: {
          clusters: [
            { name: 'data-cache-6379', weight: 2 },
            { name: 'mq', weight: 1 },
          ],
        },
      },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
