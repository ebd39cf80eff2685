/** The one HTTP listener and its connection manager. */
import { ADS_CONFIG_SOURCE, type Json } from './output.js';

export const HCM_TYPE = 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
export const ROUTER_FILTER: Json = {
  name: 'envoy.filters.http.router',
  typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router' },
};

export function listenerName(port: number): string {
  return `http-${port}`;
}

/**
 * The listener; its connection manager gets the route configuration named `routeConfigName` over RDS (emit inlines it for a static bootstrap).
 * Bound to `::`, it takes IPv4 connections too (ipv4_compat), as Gloo's default gateway does.
 */
export function httpListener(address: string, port: number, httpFilters: Json[], routeConfigName: string, name = listenerName(port)): Json {
  return {
    name,
    address: { socket_address: { address, port_value: port, ...(address === '::' ? { ipv4_compat: true } : {}) } },
    filter_chains: [
      {
        filters: [
          {
            name: 'envoy.filters.network.http_connection_manager',
            typed_config: {
              '@type': HCM_TYPE,
              stat_prefix: name,
              // Never trust client-supplied x-envoy-* headers (e.g. x-envoy-original-path).
              use_remote_address: true,
              // RBAC permissions and route prefixes match the path as Envoy sees it; without these,
              // `/public/../admin` or `//admin` would pass a `/public` policy and reach the upstream,
              // which resolves it to /admin (Envoy's edge best practices: path normalization).
              normalize_path: true,
              merge_slashes: true,
              // %2F and %5C could hide a `/` from the checks above; clients are redirected to the decoded path.
              path_with_escaped_slashes_action: 'UNESCAPE_AND_REDIRECT',
              // Many upstreams read `x_user_id` and `x-user-id` as one name (CGI's HTTP_X_USER_ID), so a
              // client's underscore spelling could pose as the identity sluice-extauth sets. Dropped, as nginx does.
              common_http_protocol_options: { headers_with_underscores_action: 'DROP_HEADER' },
              rds: { config_source: ADS_CONFIG_SOURCE, route_config_name: routeConfigName },
              http_filters: [...httpFilters, ROUTER_FILTER],
            },
          },
        ],
      },
    ],
  };
}
