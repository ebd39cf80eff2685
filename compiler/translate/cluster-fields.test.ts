import { checkMessage } from '../verify/proto-json.js';
import { upstreamClusters } from './tunnel.js';
import { upstreamClusterProblems } from '../resolve/upstream-cluster-checks.js';
import type { HealthCheckIR, UpstreamIR } from '../ir/model.js';

const origin = {
  file: '',
  resource: 'Upstream shop/orders',
  lineOf: () => undefined,
} as unknown as UpstreamIR['origin'];
const dns: UpstreamIR = {
  name: 'orders',
  namespace: 'shop',
  origin,
  target: { kind: 'dns', host: 'orders.internal', port: 8080 },
};
const tls: UpstreamIR['tls'] = { parameters: {}, alpnProtocols: [], verifySubjectAltNames: [], oneWayTls: false };

function clustersOf(upstream: UpstreamIR) {
  const pairs = upstreamClusters(upstream, undefined);
  for (const p of pairs) expect(checkMessage('envoy.config.cluster.v3.Cluster', p.cluster)).toEqual([]);
  return pairs.map((p) => p.cluster);
}

const check = (c: Partial<HealthCheckIR>): HealthCheckIR => ({
  timeout: '1s',
  interval: '5s',
  unhealthyThreshold: 2,
  healthyThreshold: 1,
  check: { kind: 'tcp' },
  ...c,
});

test('DNS refresh, host removal and preconnecting are the cluster fields of those names', () => {
  const [cluster] = clustersOf({
    ...dns,
    policy: {
      cluster: {
        ignoreHealthOnHostRemoval: true,
        respectDnsTtl: true,
        dnsRefreshRate: '30s',
        preconnect: { perUpstream: 1.5, predictive: 2 },
      },
    },
  });
  expect(cluster).toMatchObject({
    type: 'STRICT_DNS',
    ignore_health_on_host_removal: true,
    respect_dns_ttl: true,
    dns_refresh_rate: '30s',
    preconnect_policy: { per_upstream_preconnect_ratio: 1.5, predictive_preconnect_ratio: 2 },
  });
});

test("an HTTP check's service name is a prefix matcher, its method Envoy's; a gRPC check's metadata are header options", () => {
  const [cluster] = clustersOf({
    ...dns,
    tls,
    policy: {
      healthChecks: [
        check({
          alpnProtocols: ['http/1.1'],
          check: { kind: 'http', path: '/healthz', serviceName: 'orders', method: 'HEAD' },
        }),
        check({
          check: {
            kind: 'grpc',
            serviceName: 'shop.Orders',
            metadata: [{ key: 'x-probe', value: '1', append: false }],
          },
        }),
      ],
    },
  });
  const [http, grpc] = cluster!.health_checks as Record<string, unknown>[];
  expect(http).toMatchObject({
    tls_options: { alpn_protocols: ['http/1.1'] },
    http_health_check: { path: '/healthz', service_name_matcher: { prefix: 'orders' }, method: 'HEAD' },
  });
  expect(grpc!.grpc_health_check).toEqual({
    service_name: 'shop.Orders',
    initial_metadata: [{ header: { key: 'x-probe', value: '1' }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' }],
  });
});

test("through a tunnel the fields go to the proxies' cluster, which resolves their names", () => {
  const [entry, proxies] = clustersOf({
    ...dns,
    tunnel: { hostname: 'partner.example.com:443', headers: [] },
    policy: { cluster: { dnsRefreshRate: '10s' } },
  });
  expect(entry!.dns_refresh_rate).toBeUndefined();
  expect(proxies).toMatchObject({ name: 'orders_original', type: 'STRICT_DNS', dns_refresh_rate: '10s' });
});

describe('checks', () => {
  const messages = (u: UpstreamIR) => upstreamClusterProblems([u]).map((d) => `${d.field}: ${d.message}`);

  test("DNS settings where Envoy resolves no name: IP hosts, a Service's pods", () => {
    const cluster = { respectDnsTtl: true, dnsRefreshRate: '5s' };
    expect(messages({ ...dns, policy: { cluster } })).toEqual([]);
    const byAddress = messages({
      ...dns,
      target: { kind: 'static', hosts: [{ address: '10.0.0.1', port: 80 }] },
      policy: { cluster },
    });
    expect(byAddress).toEqual([
      expect.stringMatching(/^spec\.respectDnsTtl: .*all its hosts are IP addresses/),
      expect.stringMatching(/^spec\.dnsRefreshRate: .*all its hosts are IP addresses/),
    ]);
    // One DNS name among the failover endpoints makes the cluster STRICT_DNS.
    expect(
      messages({
        ...dns,
        target: { kind: 'static', hosts: [{ address: '10.0.0.1', port: 80 }] },
        failover: { priorities: [[{ hosts: [{ address: 'dr.example.com', port: 80 }] }]] },
        policy: { cluster },
      }),
    ).toEqual([]);
    const pods = messages({
      ...dns,
      target: { kind: 'service', service: { name: 'orders', namespace: 'shop' }, host: 'orders.shop', port: 80 },
      policy: { cluster: { dnsRefreshRate: '5s' } },
    });
    expect(pods).toEqual([expect.stringContaining("the Service's pod addresses (EDS)")]);
  });

  test('a refresh rate of 1ms or less, predictive preconnecting under a hashing balancer', () => {
    expect(messages({ ...dns, policy: { cluster: { dnsRefreshRate: '0.001s' } } })).toEqual([
      expect.stringContaining('not above 1ms'),
    ]);
    expect(messages({ ...dns, policy: { cluster: { dnsRefreshRate: '0.0011s' } } })).toEqual([]);
    for (const kind of ['ringHash', 'maglev'] as const)
      expect(
        messages({ ...dns, policy: { loadBalancer: { kind }, cluster: { preconnect: { predictive: 2 } } } }),
      ).toEqual([expect.stringContaining(`this Upstream's is ${kind}`)]);
    expect(
      messages({ ...dns, policy: { loadBalancer: { kind: 'random' }, cluster: { preconnect: { predictive: 2 } } } }),
    ).toEqual([]);
  });

  test('CONNECT checks, and ALPN for a check without TLS or through a tunnel', () => {
    const http = check({ check: { kind: 'http', path: '/', method: 'CONNECT' } });
    expect(messages({ ...dns, policy: { healthChecks: [http] } })).toEqual([
      expect.stringMatching(/^spec\.healthChecks\[0\]\.httpHealthCheck\.method: /),
    ]);
    const alpn = check({ alpnProtocols: ['h2'] });
    expect(messages({ ...dns, policy: { healthChecks: [alpn] } })).toEqual([
      expect.stringContaining('speaks plain TCP'),
    ]);
    expect(messages({ ...dns, tls, policy: { healthChecks: [alpn] } })).toEqual([]);
    expect(
      messages({ ...dns, tls, tunnel: { hostname: 'p:443', headers: [] }, policy: { healthChecks: [alpn] } }),
    ).toEqual([expect.stringContaining('HTTP CONNECT proxies in plain TCP')]);
  });
});
