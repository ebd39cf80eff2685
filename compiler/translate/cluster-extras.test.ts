import { checkMessage } from '../verify/proto-json.js';
import { upstreamClusters } from './tunnel.js';
import type { UpstreamIR } from '../ir/model.js';

const base: UpstreamIR = {
  name: 'orders',
  namespace: 'shop',
  origin: { file: '', resource: 'Upstream shop/orders', lineOf: () => undefined } as unknown as UpstreamIR['origin'],
  target: { kind: 'dns', host: 'orders.internal', port: 8080 },
};

function clusterOf(policy: UpstreamIR['policy']) {
  const [pair] = upstreamClusters({ ...base, policy }, undefined);
  expect(checkMessage('envoy.config.cluster.v3.Cluster', pair!.cluster)).toEqual([]);
  return pair!.cluster;
}

test('slow start: round robin gets a config of its own; least request keeps its choice count beside it', () => {
  expect(
    clusterOf({ loadBalancer: { kind: 'roundRobin', slowStart: { window: '30s' } } }).round_robin_lb_config,
  ).toEqual({ slow_start_config: { slow_start_window: '30s' } });
  const least = clusterOf({
    loadBalancer: { kind: 'leastRequest', slowStart: { aggression: 2, minWeightPercent: 5 } },
  });
  expect(least.least_request_lb_config).toEqual({
    slow_start_config: {
      aggression: { default_value: 2, runtime_key: 'upstream.orders.slowStart.aggression' },
      min_weight_percent: { value: 5 },
    },
  });
  expect(least.round_robin_lb_config).toBeUndefined();
});

test('health check extras: the event log is a file sink, a TCP check sends and expects its payloads', () => {
  const cluster = clusterOf({
    healthChecks: [
      {
        timeout: '1s',
        interval: '5s',
        unhealthyThreshold: 2,
        healthyThreshold: 1,
        more: { eventLogPath: '/var/log/hc.log', reuseConnection: false },
        check: { kind: 'tcp', send: '50494e47', receive: ['504f4e47'] },
      },
    ],
  });
  expect((cluster.health_checks as unknown[])[0]).toMatchObject({
    reuse_connection: false,
    event_logger: [{ typed_config: { event_log_path: '/var/log/hc.log' } }],
    tcp_health_check: { send: { text: '50494e47' }, receive: [{ text: '504f4e47' }] },
  });
});
