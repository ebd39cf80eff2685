import type { UpstreamIR } from '../ir/model.js';
import { upstreamCluster } from './clusters.js';

const origin = { file: 'u.yaml', resource: 'Upstream default/orders', lineOf: () => 1 };
const orders = (hosts: string[], failover: UpstreamIR['failover']): UpstreamIR => ({
  name: 'orders',
  namespace: 'default',
  origin,
  target: { kind: 'static', hosts: hosts.map((address) => ({ address, port: 8080 })) },
  ...(failover ? { failover } : {}),
});

describe('failover', () => {
  test('the hosts are priority 0 and each prioritized locality list the next priority; on IP addresses the assignment is served by EDS', () => {
    const pair = upstreamCluster(
      orders(['10.0.0.1'], {
        priorities: [
          [
            { locality: { region: 'eu', subZone: 'r1' }, hosts: [{ address: '10.0.1.1', port: 80, weight: 2 }] },
            { hosts: [{ address: '10.0.1.2', port: 80, healthCheck: { port: 81 } }] },
          ],
          [{ hosts: [{ address: '10.0.2.1', port: 80 }] }],
        ],
        overprovisioningFactor: 120,
      }),
    );
    expect(pair.cluster.type).toBe('EDS');
    const endpoints = pair.endpoints!.endpoints as { priority?: number; locality?: object; lb_endpoints: object[] }[];
    expect(endpoints.map((e) => e.priority)).toEqual([undefined, 1, 1, 2]);
    expect(endpoints[1]).toMatchObject({
      locality: { region: 'eu', sub_zone: 'r1' },
      lb_endpoints: [{ load_balancing_weight: 2 }],
    });
    expect(endpoints[2]!.lb_endpoints[0]).toMatchObject({ endpoint: { health_check_config: { port_value: 81 } } });
    expect(pair.endpoints!.policy).toEqual({ overprovisioning_factor: 120 });
  });

  test('a DNS name among the failover endpoints makes the cluster STRICT_DNS, with the assignment inline', () => {
    const pair = upstreamCluster(
      orders(['10.0.0.1'], { priorities: [[{ hosts: [{ address: 'dr.example', port: 443 }] }]] }),
    );
    expect(pair.cluster.type).toBe('STRICT_DNS');
    expect(pair.endpoints).toBeUndefined();
    expect((pair.cluster.load_assignment as { endpoints: unknown[] }).endpoints).toHaveLength(2);
  });

  test('without failover: one priority, no policy', () => {
    const pair = upstreamCluster(orders(['10.0.0.1', '10.0.0.2'], undefined));
    expect(pair.endpoints).toEqual({
      cluster_name: 'orders',
      endpoints: [
        {
          lb_endpoints: [
            { endpoint: { address: { socket_address: { address: '10.0.0.1', port_value: 8080 } } } },
            { endpoint: { address: { socket_address: { address: '10.0.0.2', port_value: 8080 } } } },
          ],
        },
      ],
    });
  });
});
