import type { UpstreamIR } from '../ir/model.js';
import { emptyXdsSet } from './output.js';
import { tunnelListeners, upstreamClusters } from './tunnel.js';

const origin = { file: 'u.yaml', resource: 'Upstream default/partner', lineOf: () => 1 };
const partner: UpstreamIR = {
  name: 'partner',
  namespace: 'default',
  origin,
  target: { kind: 'static', hosts: [{ address: '10.0.0.5', port: 3128 }] },
  tls: { parameters: {}, alpnProtocols: [], verifySubjectAltNames: [], oneWayTls: false, sni: 'partner.example' },
  policy: { proxyProtocolVersion: 'V2', connection: { connectTimeout: '2s' } },
  tunnel: { hostname: 'partner.example:443', headers: [{ key: 'proxy-authorization', value: 'Basic eA==' }] },
};

describe('httpProxyHostname', () => {
  test("routes' cluster enters the tunnel socket with the Upstream's TLS and PROXY header; the proxies' cluster is plain", () => {
    const [entry, proxies] = upstreamClusters(partner, undefined);
    expect(entry!.cluster).toMatchObject({
      name: 'partner',
      type: 'STATIC',
      load_assignment: { endpoints: [{ lb_endpoints: [{ endpoint: { address: { pipe: { path: '@/partner' } } } }] }] },
      transport_socket: {
        name: 'envoy.transport_sockets.upstream_proxy_protocol',
        typed_config: { transport_socket: { name: 'envoy.transport_sockets.tls' } },
      },
    });
    // The Upstream's other settings stay with the proxies, as in Gloo.
    expect(proxies!.cluster).toMatchObject({ name: 'partner_original', connect_timeout: '2s' });
    expect(proxies!.cluster).not.toHaveProperty('transport_socket');
    expect(proxies!.endpoints).toMatchObject({ cluster_name: 'partner_original' });
  });

  test('without it: one cluster', () => {
    expect(upstreamClusters({ ...partner, tunnel: undefined }, undefined).map((p) => p.cluster.name)).toEqual([
      'partner',
    ]);
  });

  test('a tunnel listener only where a route sends to the Upstream, with the CONNECT headers', () => {
    const set = emptyXdsSet();
    tunnelListeners(set, [partner]);
    expect(set.listeners.size).toBe(0);
    set.routes.set('r', { virtual_hosts: [{ routes: [{ route: { cluster: 'partner' } }] }] });
    tunnelListeners(set, [partner]);
    expect(set.listeners.get('solo_io_generated_self_listener_partner')).toMatchObject({
      address: { pipe: { path: '@/partner' } },
      filter_chains: [
        {
          filters: [
            {
              typed_config: {
                cluster: 'partner_original',
                tunneling_config: {
                  hostname: 'partner.example:443',
                  headers_to_add: [
                    {
                      header: { key: 'proxy-authorization', value: 'Basic eA==' },
                      append_action: 'OVERWRITE_IF_EXISTS_OR_ADD',
                    },
                  ],
                },
              },
            },
          ],
        },
      ],
    });
  });
});
