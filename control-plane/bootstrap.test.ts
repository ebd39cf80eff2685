import { verifyBootstrap } from '../compiler/verify/verify.js';
import { adsBootstrap, XDS_CLUSTER } from './bootstrap.js';

const base = { nodeId: 'envoy-1', nodeCluster: 'gw', adminPort: 19000, delta: false };

test('the ADS bootstrap passes the verifier, for a DNS name and an IP, SotW and delta', () => {
  for (const [host, delta] of [
    ['sluice', false],
    ['10.0.0.5', true],
  ] as const) {
    const b = adsBootstrap({ ...base, xdsAddress: { host, port: 18000 }, delta, listenerPort: 8080 });
    expect(verifyBootstrap(b)).toEqual([]);
    const ads = (b.dynamic_resources as any).ads_config;
    expect(ads.api_type).toBe(delta ? 'DELTA_GRPC' : 'GRPC');
    expect(ads.grpc_services[0].envoy_grpc.cluster_name).toBe(XDS_CLUSTER);
    const cluster = (b.static_resources as any).clusters[0];
    expect(cluster.name).toBe(XDS_CLUSTER);
    expect(cluster.type).toBe(host === 'sluice' ? 'STRICT_DNS' : 'STATIC');
    expect(cluster.upstream_connection_options).toEqual({ tcp_keepalive: {} });
    expect(
      cluster.typed_extension_protocol_options['envoy.extensions.upstreams.http.v3.HttpProtocolOptions']
        .explicit_http_config,
    ).toEqual({ http2_protocol_options: {} });
    expect((b.dynamic_resources as any).lds_config).toEqual({ ads: {}, resource_api_version: 'V3' });
    expect((b.dynamic_resources as any).cds_config).toEqual({ ads: {}, resource_api_version: 'V3' });
    expect((b.node as any).metadata).toEqual({ 'sluice.listener_port': 8080 });
  }
});

test('the verifier would catch a bootstrap whose ADS names no defined cluster', () => {
  const b = adsBootstrap({ ...base, xdsAddress: { host: 'sluice', port: 18000 } });
  (b.static_resources as any).clusters[0].name = 'other';
  expect(verifyBootstrap(b).length).toBeGreaterThan(0);
});
