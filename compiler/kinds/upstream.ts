/** Gloo's Upstream (upstream.proto) and UpstreamGroup; the settings below become Envoy Cluster fields. */
import { Type, type Static } from '@sinclair/typebox';
import { awsUpstream } from './aws.js';
import { weightedDestinations } from './destinations.js';
import { consul, differs, glooEnvoy, note, REASONS, refused, refuseEach } from './gloo.js';
import { kind } from './resource.js';
import {
  atMostOne,
  boolean,
  exactlyOne,
  nonEmptyString,
  object,
  protoEnum,
  port,
  positiveDuration,
  resourceName,
  singleLine,
  stringMap,
  uint32,
} from './schema.js';
import { upstreamSslConfig } from './tls.js';
import { connectionConfig, tunnelFields, upstreamProtocolFields } from './upstream-connection.js';
import { failover } from './upstream-failover.js';
import {
  grpcHealthCheck,
  healthCheckTimingFields,
  healthCheckTransportFields,
  httpHealthCheckFields,
  tcpHealthCheck,
} from './health-check-more.js';
import { clusterDiscoveryFields } from './upstream-discovery.js';
import { serviceSpec, staticHostFields, staticUpstreamFields } from './upstream-static.js';

const lbTypeNote = 'one of roundRobin, leastRequest, random, ringHash, maglev (unset: round robin)';
const slowStart = () =>
  note(
    object({
      slowStartWindow: note(positiveDuration, 'how long a new endpoint takes to reach its full share'),
      aggression: note(
        Type.Number({ minimum: 0.001 }),
        'at least 0.001 (Envoy takes 0 or less as its default 1, which is linear)',
      ),
      minWeightPercent: note(
        Type.Number({ minimum: 0, maximum: 100 }),
        "the share a new endpoint starts at; Envoy's default 10",
      ),
    }),
    "Envoy's slow_start_config; aggression's runtime key is Gloo's, upstream.<cluster>.slowStart.aggression",
  );
const share = Type.Integer({ minimum: 0, maximum: 100 });
const ringSize = Type.Integer({ minimum: 1, maximum: 8388608 });

// Gloo's load_balancer.proto.
const loadBalancerConfig = object(
  {
    healthyPanicThreshold: note(Type.Number({ minimum: 0, maximum: 100 }), 'a percentage, 0 to 100'),
    updateMergeWindow: positiveDuration,
    roundRobin: note(object({ slowStartConfig: slowStart() }), lbTypeNote),
    leastRequest: note(
      object({
        choiceCount: note(Type.Integer({ minimum: 2, maximum: 4294967295 }), 'at least 2'),
        slowStartConfig: slowStart(),
      }),
      lbTypeNote,
    ),
    random: note(object({}), lbTypeNote),
    ringHash: note(
      object({
        ringHashConfig: object({
          minimumRingSize: ringSize,
          maximumRingSize: note(ringSize, "at most 8388608 (Envoy's bound)"),
        }),
      }),
      `${lbTypeNote}; routes choose the hash with options.lbHash`,
    ),
    maglev: note(object({}), `${lbTypeNote}; routes choose the hash with options.lbHash`),
    localityWeightedLbConfig: refused(
      "with Envoy's locality-weighted balancing a locality without a weight gets no traffic, and an Upstream's own endpoints (static hosts, a Service's zones) have no locality weight in Gloo's API: only failover localities could carry one",
      'weight the hosts with loadBalancingWeight, or use failover priorities',
    ),
    useHostnameForHashing: boolean,
    closeConnectionsOnHostSetChange: boolean,
  },
  [],
  atMostOne('roundRobin', 'leastRequest', 'random', 'ringHash', 'maglev'),
);

// Gloo's circuit_breaker.proto: one threshold at the default priority.
const circuitBreakers = object({
  maxConnections: uint32,
  maxPendingRequests: uint32,
  maxRequests: uint32,
  maxRetries: uint32,
  trackRemaining: boolean,
});

const outlierDetection = object({
  consecutive5xx: uint32,
  interval: positiveDuration,
  baseEjectionTime: positiveDuration,
  maxEjectionPercent: share,
  enforcingConsecutive5xx: share,
  enforcingSuccessRate: share,
  successRateMinimumHosts: uint32,
  successRateRequestVolume: uint32,
  successRateStdevFactor: uint32,
  consecutiveGatewayFailure: uint32,
  enforcingConsecutiveGatewayFailure: share,
  splitExternalLocalOriginErrors: note(
    boolean,
    'true: errors of the connection itself (local origin) are counted apart from the answers',
  ),
  consecutiveLocalOriginFailure: uint32,
  enforcingConsecutiveLocalOriginFailure: share,
  enforcingLocalOriginSuccessRate: share,
});

const healthCheckKind = 'one of httpHealthCheck, tcpHealthCheck, grpcHealthCheck';
const required = <T extends Parameters<typeof note>[0]>(schema: T) => note(schema, 'required');

const healthCheck = object(
  {
    timeout: required(positiveDuration),
    interval: required(positiveDuration),
    unhealthyThreshold: required(uint32),
    healthyThreshold: required(uint32),
    noTrafficInterval: positiveDuration,
    httpHealthCheck: note(
      object(
        {
          path: required(Type.String({ pattern: '^/', format: 'single-line' })),
          host: singleLine,
          ...httpHealthCheckFields,
          responseAssertions: glooEnvoy(),
        },
        ['path'],
      ),
      healthCheckKind,
    ),
    tcpHealthCheck,
    grpcHealthCheck,
    customHealthCheck: refused(
      "a custom health checker is an Envoy extension named by its config (Gloo's redis checker among them), and Sluice builds only Envoy's HTTP, TCP and gRPC checkers",
      'use tcpHealthCheck with send and receive payloads, or an HTTP or gRPC check',
    ),
    ...healthCheckTimingFields,
    ...healthCheckTransportFields,
  },
  ['timeout', 'interval', 'unhealthyThreshold', 'healthyThreshold'],
  exactlyOne('httpHealthCheck', 'tcpHealthCheck', 'grpcHealthCheck'),
);

/** Gloo's FallbackPolicy names, Envoy's too. */
export const SUBSET_FALLBACKS = ['ANY_ENDPOINT', 'DEFAULT_SUBSET', 'NO_FALLBACK'] as const;

// Gloo's subset_spec.proto.
const subsetSpec = object(
  {
    selectors: Type.Array(
      object({ keys: Type.Array(nonEmptyString, { minItems: 1, uniqueItems: true }), singleHostPerSubset: boolean }, [
        'keys',
      ]),
      { minItems: 1 },
    ),
    fallbackPolicy: note(protoEnum(SUBSET_FALLBACKS), 'ANY_ENDPOINT (unset), DEFAULT_SUBSET, NO_FALLBACK'),
    defaultSubset: note(object({ values: stringMap }, ['values']), 'with fallbackPolicy DEFAULT_SUBSET'),
  },
  ['selectors'],
);

const upstreamSpec = object(
  {
    kube: object(
      {
        selector: differs(
          stringMap,
          `only the Service's pods with all these labels, when the Service's EndpointSlices (and Pods) are among the inputs; otherwise Envoy reaches the Service by its DNS name, and the selector must then equal the Service's own (a narrower one would reach every pod)`,
        ),
        serviceName: resourceName,
        serviceNamespace: note(resourceName, "defaults to the Upstream's namespace"),
        servicePort: port,
        serviceSpec: serviceSpec(),
        subsetSpec: note(
          subsetSpec,
          "Envoy's subset load balancer over the pods' labels; needs the Service's EndpointSlices and Pods among the inputs",
        ),
      },
      ['serviceName', 'servicePort'],
    ),
    static: object(
      {
        hosts: Type.Array(
          object(
            {
              addr: note(Type.String({ minLength: 1, format: 'host' }), 'an IP address or a DNS name'),
              port,
              ...staticHostFields,
            },
            ['addr', 'port'],
          ),
          { minItems: 1 },
        ),
        ...staticUpstreamFields,
        serviceSpec: serviceSpec(),
      },
      ['hosts'],
    ),
    useHttp2: boolean,
    sslConfig: upstreamSslConfig,
    // Labels Gloo's discovery adds; no routing meaning.
    discoveryMetadata: differs(
      object({ labels: stringMap }),
      "accepted and not used: labels Gloo's discovery adds, with no routing meaning",
    ),
    loadBalancerConfig,
    circuitBreakers: note(circuitBreakers, 'one threshold at the default priority'),
    connectionConfig,
    outlierDetection,
    healthChecks: note(Type.Array(healthCheck, { minItems: 1 }), 'active health checks from every Envoy'),
    pipe: refused('Sluice does not proxy to Unix sockets'),
    aws: note(
      awsUpstream,
      "AWS Lambda functions, invoked by upstream Envoy's aws_lambda filter on the routes that name one (destinationSpec.aws)",
    ),
    azure: glooEnvoy(),
    consul: consul(),
    ...refuseEach(['awsEc2', 'gcp', 'ai'], glooEnvoy),
    failover,
    ...upstreamProtocolFields,
    ...tunnelFields,
    ...clusterDiscoveryFields,
    disableIstioAutoMtls: refused('Sluice has no Istio integration'),
  },
  [],
  exactlyOne('kube', 'static', 'aws'),
);

export const UPSTREAM = kind('gloo.gateway.example/v1', 'Upstream', upstreamSpec, 'gloo.solo.io/v1');
export const UPSTREAM_GROUP = kind('gloo.gateway.example/v1', 'UpstreamGroup', weightedDestinations, 'gloo.solo.io/v1');

export type UpstreamSpec = Static<typeof upstreamSpec>;
export type SubsetSpec = Static<typeof subsetSpec>;
export type LoadBalancerConfigSpec = Static<typeof loadBalancerConfig>;
export type HealthCheckSpec = Static<typeof healthCheck>;
