/**
 * Gloo's TcpHost.TcpAction (tcp.proto): where a TCP host's connections go,
 * one destination, weighted destinations or an UpstreamGroup, as Envoy's
 * tcp_proxy cluster or weighted_clusters (resolve/tcp-destinations.ts).
 */
import { Type, type Static } from '@sinclair/typebox';
import { destinationFields, subsetSelector } from './destinations.js';
import { differs, glooEnvoy, note, refused } from './gloo.js';
import { resourceRef } from './resource.js';
import { exactlyOne, object } from './schema.js';

const single = object(
  destinationFields(
    differs(
      subsetSelector,
      "the upstream's endpoints with these labels (Envoy's tcp_proxy metadata_match; its keys must be those of one of the upstream's subset selectors); Gloo ignores a TCP destination's subset",
    ),
    glooEnvoy(),
  ),
  [],
  exactlyOne('kube', 'upstream'),
);

const multi = object(
  {
    destinations: Type.Array(
      object(
        {
          destination: single,
          weight: note(
            Type.Integer({ minimum: 1, maximum: 4294967295 }),
            "connections are split in proportion to the weights; at least 1 (Envoy's tcp_proxy refuses 0)",
          ),
          options: refused(
            'weighted destination options set HTTP headers, buffering and CSRF, and a TCP connection has no requests to apply them to',
          ),
        },
        ['destination', 'weight'],
      ),
      { minItems: 1 },
    ),
  },
  ['destinations'],
);

export const tcpDestination = object(
  {
    single: note(single, 'an Upstream, or a Kubernetes Service port (kube), as a route names one'),
    multi: note(multi, "Envoy's tcp_proxy weighted_clusters"),
    upstreamGroup: note(
      resourceRef,
      'its destinations as tcp_proxy weighted_clusters; each needs a weight of at least 1 and no options',
    ),
    forwardSniClusterName: refused(
      "Envoy's sni_cluster filter sends a connection to the cluster its SNI names: Sluice names clusters itself and sends a proxy only those its Gateways use, so a client's SNI would pick among internal names",
      'give each upstream a TCP host matched by sslConfig.sniDomains with destination.single',
    ),
  },
  [],
  exactlyOne('single', 'multi', 'upstreamGroup'),
);

export type TcpDestinationSpec = Static<typeof tcpDestination>;
