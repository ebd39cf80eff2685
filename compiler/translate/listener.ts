/** The HTTP listeners and their connection manager. */
import { earlyHeaderMutation } from './early-headers.js';
import type { AccessLogIR } from '../ir/access-log.js';
import type { HttpSettingsIR } from '../ir/model.js';
import { accessLog } from './access-logs.js';
import { hcmMoreFields } from './hcm-settings.js';
import { ADS_CONFIG_SOURCE, type Json } from './output.js';

export const HCM_TYPE =
  'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
export const ROUTER_FILTER: Json = {
  name: 'envoy.filters.http.router',
  typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router' },
};

export function listenerName(port: number): string {
  return `http-${port}`;
}

/** Bound to `::`, a listener takes IPv4 connections too (ipv4_compat), as Gloo's default gateway does. */
export function listenerAddress(address: string, port: number): Json {
  return { socket_address: { address, port_value: port, ...(address === '::' ? { ipv4_compat: true } : {}) } };
}

/**
 * The listener; its connection manager gets the route configuration named `routeConfigName` over RDS (emit inlines it for a static bootstrap).
 */
export function httpListener(
  address: string,
  port: number,
  httpFilters: Json[],
  routeConfigName: string,
  name = listenerName(port),
): Json {
  return {
    name,
    address: listenerAddress(address, port),
    filter_chains: [{ filters: [connectionManager(name, httpFilters, routeConfigName)] }],
  };
}

/** A Gateway's settings, on top of Sluice's defaults (the ones kept fixed say why). */
export function connectionManager(
  statPrefix: string,
  httpFilters: Json[],
  routeConfigName: string,
  settings: HttpSettingsIR = {},
  accessLogs: AccessLogIR[] = [],
  router: Json = ROUTER_FILTER,
): Json {
  const s = settings;
  const more = hcmMoreFields(s);
  const optional = (value: unknown, key: string) => (value === undefined ? {} : { [key]: value });
  return {
    name: 'envoy.filters.network.http_connection_manager',
    typed_config: {
      '@type': HCM_TYPE,
      stat_prefix: statPrefix,
      // Never trust client-supplied x-envoy-* headers (e.g. x-envoy-original-path); Gloo's default too.
      use_remote_address: s.useRemoteAddress ?? true,
      ...optional(s.xffNumTrustedHops, 'xff_num_trusted_hops'),
      ...optional(s.skipXffAppend, 'skip_xff_append'),
      ...optional(s.serverName, 'server_name'),
      ...optional(s.maxRequestHeadersKb, 'max_request_headers_kb'),
      ...optional(s.streamIdleTimeout, 'stream_idle_timeout'),
      ...optional(s.requestTimeout, 'request_timeout'),
      ...optional(s.requestHeadersTimeout, 'request_headers_timeout'),
      ...optional(s.drainTimeout, 'drain_timeout'),
      ...optional(s.delayedCloseTimeout, 'delayed_close_timeout'),
      ...more.top,
      ...earlyHeaderMutation(s.earlyHeaders),
      // RBAC permissions and route prefixes match the path as Envoy sees it; without these,
      // `/public/../admin` or `//admin` would pass a `/public` policy and reach the upstream,
      // which resolves it to /admin (Envoy's edge best practices: path normalization).
      normalize_path: true,
      merge_slashes: true,
      // %2F and %5C could hide a `/` from the checks above; clients are redirected to the decoded path.
      path_with_escaped_slashes_action: 'UNESCAPE_AND_REDIRECT',
      common_http_protocol_options: {
        // Many upstreams read `x_user_id` and `x-user-id` as one name (CGI's HTTP_X_USER_ID), so a
        // client's underscore spelling could pose as the identity sluice-extauth sets. Dropped, as nginx does.
        headers_with_underscores_action: 'DROP_HEADER',
        ...optional(s.idleTimeout, 'idle_timeout'),
        ...optional(s.maxConnectionDuration, 'max_connection_duration'),
        ...optional(s.maxStreamDuration, 'max_stream_duration'),
        ...more.common,
      },
      ...(accessLogs.length > 0 ? { access_log: accessLogs.map((log) => accessLog(log, 'http')) } : {}),
      rds: { config_source: ADS_CONFIG_SOURCE, route_config_name: routeConfigName },
      http_filters: [...httpFilters, router],
    },
  };
}
