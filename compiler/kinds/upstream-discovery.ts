/**
 * Gloo's Upstream fields that are Envoy Cluster fields of the same name and
 * shape: how the cluster treats a host that discovery removes, how often a
 * DNS name is resolved again, and Envoy's preconnect policy (Gloo's
 * PreconnectPolicy, upstream.proto).
 */
import { Type } from '@sinclair/typebox';
import { note } from './gloo.js';
import { boolean, object, positiveDuration } from './schema.js';

const ratio = (what: string) =>
  note(Type.Number({ minimum: 1, maximum: 3 }), `1 to 3 (Envoy's bounds; 1 or unset: no preconnecting); ${what}`);

export const clusterDiscoveryFields = {
  ignoreHealthOnHostRemoval: note(
    boolean,
    "true: a host discovery removes leaves at once, even while active health checks still find it healthy (Envoy's ignore_health_on_host_removal)",
  ),
  respectDnsTtl: note(
    boolean,
    "true: each DNS name is resolved again when its records' TTL expires (dnsRefreshRate when the TTL is 0); hosts given by DNS name only",
  ),
  dnsRefreshRate: note(
    positiveDuration,
    "more than 1ms; how often DNS names are resolved again (Envoy's default 5s); hosts given by DNS name only",
  ),
  preconnectPolicy: note(
    object({
      perUpstreamPreconnectRatio: ratio('connections opened per host for each request in flight'),
      predictivePreconnectRatio: ratio(
        'connections opened ahead across the hosts the load balancer would pick next; roundRobin, leastRequest and random only',
      ),
    }),
    "Envoy's preconnect_policy",
  ),
};
