/**
 * Gloo's failover.proto: endpoints at lower priorities, which Envoy sends
 * to only as the higher ones turn unhealthy; and the per-host fields that
 * static hosts share with them (health check address, weight).
 */
import { Type, type Static } from '@sinclair/typebox';
import { glooEnvoy, note, refused } from './gloo.js';
import { lineOrEmpty, object, port } from './schema.js';

const weight = Type.Integer({ minimum: 1, maximum: 4294967295 });

/** LbEndpoint.HealthCheckConfig of failover.proto (static.proto's is the same, but for its port). */
export const endpointHealthCheck = object({
  portValue: note(Type.Integer({ minimum: 0, maximum: 65535 }), "0 or unset: the host's own port"),
  hostname: note(lineOrEmpty, 'the Host of HTTP health checks and the authority of gRPC ones, for this host'),
  path: glooEnvoy(),
  method: glooEnvoy(),
});

const lbEndpoint = object(
  {
    address: note(Type.String({ minLength: 1, format: 'host' }), 'an IP address or a DNS name'),
    port,
    healthCheckConfig: note(endpointHealthCheck, "Envoy's endpoint health_check_config"),
    upstreamSslConfig: refused(
      "TLS per endpoint is not built: Envoy would need a transport socket match per endpoint, and Sluice gives the cluster one transport socket (the Upstream's sslConfig, which the failover endpoints use too)",
      "use the Upstream's sslConfig, or an Upstream of their own behind an UpstreamGroup",
    ),
    loadBalancingWeight: note(weight, 'at least 1; its share of its locality'),
    metadata: refused('no Sluice filter reads endpoint metadata'),
  },
  ['address', 'port'],
);

export const failover = note(
  object({
    prioritizedLocalities: note(
      Type.Array(
        object(
          {
            localityEndpoints: Type.Array(
              object(
                {
                  locality: object({ region: lineOrEmpty, zone: lineOrEmpty, subZone: lineOrEmpty }),
                  lbEndpoints: Type.Array(lbEndpoint, { minItems: 1 }),
                  loadBalancingWeight: refused(
                    "a locality's weight counts only under loadBalancerConfig.localityWeightedLbConfig, which is refused (Envoy would then send nothing to localities without one)",
                  ),
                },
                ['lbEndpoints'],
              ),
              { minItems: 1 },
            ),
          },
          ['localityEndpoints'],
        ),
        { minItems: 1 },
      ),
      'priority 1, 2, ... in list order (the hosts are priority 0)',
    ),
    policy: object({
      overprovisioningFactor: note(Type.Integer({ minimum: 1, maximum: 4294967295 }), "percent; Envoy's default 140"),
    }),
  }),
  'static Upstreams; needs healthChecks or outlierDetection to find the hosts unhealthy (otherwise a warning)',
);

export type LbEndpointSpec = Static<typeof lbEndpoint>;
