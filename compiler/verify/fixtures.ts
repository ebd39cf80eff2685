/**
 * Realistic Envoy messages for the verifier's tests (field names checked
 * against Envoy's v3 protos): each call returns a fresh copy to break.
 */
import type { Json } from '../translate/output.js';

const HCM = 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
const ROUTER = 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router';
const JWT = 'type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.';
const RBAC = 'type.googleapis.com/envoy.extensions.filters.http.rbac.v3.';
const EXTAUTHZ = 'type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.';

export function strictDnsCluster(
  name = 'default-petstore-8080',
  host = 'petstore.default.svc.cluster.local',
  port = 8080,
): Json {
  return {
    name,
    type: 'STRICT_DNS',
    connect_timeout: '5s',
    lb_policy: 'ROUND_ROBIN',
    dns_lookup_family: 'V4_ONLY',
    load_assignment: {
      cluster_name: name,
      endpoints: [
        { lb_endpoints: [{ endpoint: { address: { socket_address: { address: host, port_value: port } } } }] },
      ],
    },
  };
}

export function routeConfig(name = 'http-8080'): Json {
  return {
    name,
    virtual_hosts: [
      {
        name: 'default.petstore',
        domains: ['petstore.example.com', 'petstore.example.com:8080'],
        routes: [
          { match: { prefix: '/api' }, route: { cluster: 'default-petstore-8080', timeout: '15s' } },
          {
            match: { prefix: '/' },
            route: { weighted_clusters: { clusters: [{ name: 'default-petstore-8080', weight: 100 }] } },
            request_headers_to_remove: ['x-sluice-graphql-api'],
          },
        ],
      },
      {
        name: 'default.catchall',
        domains: ['*'],
        routes: [{ match: { prefix: '/' }, direct_response: { status: 404 } }],
      },
    ],
  };
}

/** Admin on loopback, one listener with HCM + router + inline route_config, one STRICT_DNS cluster. */
export function bootstrap(): Json {
  return {
    node: { id: 'sluice', cluster: 'sluice' },
    admin: { address: { socket_address: { address: '127.0.0.1', port_value: 19000 } } },
    static_resources: {
      listeners: [
        {
          name: 'http-8080',
          address: { socket_address: { address: '0.0.0.0', port_value: 8080 } },
          filter_chains: [
            {
              filters: [
                {
                  name: 'envoy.filters.network.http_connection_manager',
                  typed_config: {
                    '@type': HCM,
                    stat_prefix: 'http-8080',
                    codec_type: 'AUTO',
                    use_remote_address: true,
                    route_config: routeConfig(),
                    http_filters: [{ name: 'envoy.filters.http.router', typed_config: { '@type': ROUTER } }],
                  },
                },
              ],
            },
          ],
        },
      ],
      clusters: [strictDnsCluster()],
    },
  };
}

/** An HCM with jwt_authn -> rbac -> ext_authz -> router, per-virtual-host configuration, and RDS. */
export function securedHcm(): Json {
  return {
    '@type': HCM,
    stat_prefix: 'http-8080',
    rds: { route_config_name: 'http-8080', config_source: { ads: {}, resource_api_version: 'V3' } },
    http_filters: [
      {
        name: 'envoy.filters.http.jwt_authn',
        typed_config: {
          '@type': `${JWT}JwtAuthentication`,
          providers: {
            'default.petstore.okta': {
              issuer: 'https://issuer.example.com',
              remote_jwks: {
                http_uri: { uri: 'https://keys.example.com/jwks.json', cluster: 'default-jwks-443', timeout: '5s' },
                cache_duration: '300s',
              },
              from_headers: [{ name: 'Authorization', value_prefix: 'Bearer ' }],
              from_params: ['access_token'],
              payload_in_metadata: 'default.petstore.okta',
            },
            'default.petstore.local': {
              issuer: 'local-issuer',
              local_jwks: { inline_string: '{"keys":[]}' },
              forward: true,
            },
          },
          requirement_map: {
            'default.petstore': {
              requires_any: {
                requirements: [{ provider_name: 'default.petstore.okta' }, { provider_name: 'default.petstore.local' }],
              },
            },
          },
        },
      },
      {
        name: 'envoy.filters.http.rbac',
        typed_config: { '@type': `${RBAC}RBAC` },
      },
      {
        name: 'envoy.filters.http.ext_authz',
        typed_config: {
          '@type': `${EXTAUTHZ}ExtAuthz`,
          grpc_service: { envoy_grpc: { cluster_name: 'extauth' }, timeout: '2s' },
          transport_api_version: 'V3',
          failure_mode_allow: false,
        },
      },
      { name: 'envoy.filters.http.router', typed_config: { '@type': ROUTER } },
    ],
  };
}

/** Per-virtual-host configuration of the three filters above. */
export function securedVirtualHostConfig(): Json {
  return {
    'envoy.filters.http.jwt_authn': { '@type': `${JWT}PerRouteConfig`, requirement_name: 'default.petstore' },
    'envoy.filters.http.rbac': {
      '@type': `${RBAC}RBACPerRoute`,
      rbac: {
        rules: {
          action: 'ALLOW',
          policies: {
            readers: {
              permissions: [
                {
                  and_rules: {
                    rules: [
                      { or_rules: { rules: [{ header: { name: ':method', string_match: { exact: 'GET' } } }] } },
                      { url_path: { path: { prefix: '/api' } } },
                    ],
                  },
                },
              ],
              principals: [
                {
                  metadata: {
                    filter: 'envoy.filters.http.jwt_authn',
                    path: [{ key: 'default.petstore.okta' }, { key: 'role' }],
                    value: { string_match: { exact: 'reader' } },
                  },
                },
              ],
            },
          },
        },
      },
    },
    'envoy.filters.http.ext_authz': {
      '@type': `${EXTAUTHZ}ExtAuthzPerRoute`,
      check_settings: { context_extensions: { config_ref: 'default.ldap' } },
    },
  };
}

/** A listener using securedHcm(), for verifySet. */
export function securedListener(): Json {
  return {
    name: 'http-8080',
    address: { socket_address: { address: '0.0.0.0', port_value: 8080 } },
    filter_chains: [
      { filters: [{ name: 'envoy.filters.network.http_connection_manager', typed_config: securedHcm() }] },
    ],
  };
}

export function securedRouteConfig(): Json {
  const rc = routeConfig();
  (rc.virtual_hosts as Json[])[0].typed_per_filter_config = securedVirtualHostConfig();
  (rc.virtual_hosts as Json[])[1].typed_per_filter_config = {
    'envoy.filters.http.jwt_authn': { '@type': `${JWT}PerRouteConfig`, disabled: true },
    'envoy.filters.http.rbac': { '@type': `${RBAC}RBACPerRoute` },
    'envoy.filters.http.ext_authz': { '@type': `${EXTAUTHZ}ExtAuthzPerRoute`, disabled: true },
  };
  return rc;
}

export function securedClusters(): Json[] {
  const extauth = strictDnsCluster('extauth', 'extauth', 8083);
  extauth.typed_extension_protocol_options = {
    'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': {
      '@type': 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
      explicit_http_config: { http2_protocol_options: {} },
    },
  };
  const jwks = strictDnsCluster('default-jwks-443', 'keys.example.com', 443);
  jwks.transport_socket = {
    name: 'envoy.transport_sockets.tls',
    typed_config: {
      '@type': 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext',
      sni: 'keys.example.com',
    },
  };
  return [jwks, strictDnsCluster(), extauth];
}
