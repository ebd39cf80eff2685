/**
 * What `sluice serve` and the sidecars must agree on beyond the protos'
 * fields: the type URLs of the resources served over xDS and the internal
 * headers Envoy sets for a sidecar. One definition, so they cannot drift apart.
 * (The extauth-only parts are in extauth.ts.)
 */

/** Type URL of every resource type `sluice serve` serves, as in a DiscoveryRequest and an Any. */
export const TYPE_URL = {
  listener: 'type.googleapis.com/envoy.config.listener.v3.Listener',
  route: 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration',
  /** VHDS (serve --vhds): a route configuration's virtual hosts served one by one, named `<route configuration>/<virtual host>`. */
  virtualHost: 'type.googleapis.com/envoy.config.route.v3.VirtualHost',
  cluster: 'type.googleapis.com/envoy.config.cluster.v3.Cluster',
  endpoint: 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment',
  /** SDS: certificates and CAs, which listeners and clusters name. */
  secret: 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret',
  /** ECDS: HTTP filters served on their own (mesh mode), each named as the connection manager's filter entry. */
  extensionConfig: 'type.googleapis.com/envoy.config.core.v3.TypedExtensionConfig',
  authConfig: 'type.googleapis.com/sluice.extauth.v1.AuthConfig',
  graphqlApi: 'type.googleapis.com/sluice.graphql.v1.GraphQLApi',
  /** sluice-ratelimit's rules, one resource per rate limit domain (contract/proto/sluice/ratelimit/v1/ratelimit.proto). */
  rateLimitDomain: 'type.googleapis.com/sluice.ratelimit.v1.RateLimitDomain',
} as const;

/**
 * Set by Envoy on routes to a GraphQLApi: tells sluice-graphql which API a
 * request is for. The compiler removes any client-sent copy first.
 */
export const GRAPHQL_API_HEADER = 'x-sluice-graphql-api';
