/** Gloo's static.proto beyond the hosts' addresses, and the ServiceSpec both static and kube Upstreams carry. */
import { Type } from '@sinclair/typebox';
import { glooEnvoy, note, refused } from './gloo.js';
import { grpcJsonTranscoder } from './gateway-http-options.js';
import { atMostOne, boolean, object } from './schema.js';

const perHostSni = () =>
  refused(
    'SNI per host is not built: Gloo writes a transport socket match per host, and Sluice gives the cluster one TLS context (the name in sslConfig.sni, or with useTls the first DNS name among the hosts)',
    'set sslConfig.sni, or make one Upstream per SNI name',
  );

export const staticHostFields = {
  sniAddr: perHostSni(),
  loadBalancingWeight: note(Type.Integer({ minimum: 1, maximum: 4294967295 }), 'at least 1; its share of the hosts'),
  // Gloo reads path and method with its own (enterprise) health checker.
  healthCheckConfig: object({ path: glooEnvoy(), method: glooEnvoy() }),
  metadata: refused('no Sluice filter reads endpoint metadata'),
};

export const staticUpstreamFields = {
  useTls: note(
    boolean,
    "true: TLS to the hosts without a certificate check (as Gloo; a warning), SNI the first DNS name among them; unset: so when a host's port is 443, as Gloo; false: never. sslConfig, when set, decides instead",
  ),
  autoSniRewrite: perHostSni(),
};

const functionRouting = () =>
  refused(
    "it describes the functions Gloo's discovery found for Gloo's transformation-based function routing, which Sluice does not have",
    'route to the Upstream with routeAction.single; for gRPC set useHttp2: true; a GraphQL service is a GraphQLApi',
  );

/** Gloo's ServiceSpec: what its function discovery found (REST, gRPC), or the gRPC-JSON transcoding of the Upstream's requests. */
export const serviceSpec = () =>
  object(
    {
      grpcJsonTranscoder: note(
        grpcJsonTranscoder,
        "Envoy's gRPC-JSON transcoder for the requests routed to this Upstream (a route's per-filter config, over the Gateway's own); the Upstream then speaks HTTP/2, as in Gloo",
      ),
      rest: functionRouting(),
      grpc: functionRouting(),
    },
    [],
    atMostOne('grpcJsonTranscoder', 'rest', 'grpc'),
  );
