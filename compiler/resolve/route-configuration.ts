/**
 * A Gateway's `routeOptions` (Gloo's RouteConfigurationOptions): fields of
 * each of its route configurations. One of them is the longest direct
 * response body Envoy accepts there, so the bodies of the VirtualServices a
 * route configuration serves are checked here, against the limit of each
 * Gateway that serves them (the default gateway's: Envoy's 4096 bytes).
 */
import { fieldError, type Diagnostic } from '../diagnostics.js';
import type { GatewayIR, RouteConfigIR, VirtualHostIR } from '../ir/model.js';
import type { RouteConfigurationOptionsSpec } from '../kinds/route-configuration-options.js';

/** Envoy's max_direct_response_body_size_bytes default. */
export const DEFAULT_MAX_DIRECT_BODY_BYTES = 4096;

export function routeConfigOptions(spec: RouteConfigurationOptionsSpec | undefined): { routeConfig?: RouteConfigIR } {
  const routeConfig: RouteConfigIR = {
    ...(spec?.maxDirectResponseBodySizeBytes !== undefined
      ? { maxDirectResponseBodySizeBytes: spec.maxDirectResponseBodySizeBytes }
      : {}),
    ...(spec?.mostSpecificHeaderMutationsWins !== undefined
      ? { mostSpecificHeaderMutationsWins: spec.mostSpecificHeaderMutationsWins }
      : {}),
  };
  return Object.keys(routeConfig).length > 0 ? { routeConfig } : {};
}

/** Each direct response body longer than a route configuration that serves it takes: an error at the body (Envoy would refuse the configuration). */
export function directBodyProblems(
  virtualHosts: readonly VirtualHostIR[],
  gateways: readonly GatewayIR[],
  diagnostics: Diagnostic[],
): void {
  const byName = new Map(virtualHosts.map((vh) => [vh.name, vh]));
  const servings =
    gateways.length === 0
      ? [{ hosts: virtualHosts, gateway: undefined }]
      : gateways.map((gw) => ({ hosts: gw.virtualHosts.flatMap((n) => byName.get(n) ?? []), gateway: gw }));
  for (const { hosts, gateway } of servings) {
    const shown = gateway && `Gateway ${gateway.name.replace('.', '/')}`;
    const set = gateway?.routeConfig?.maxDirectResponseBodySizeBytes;
    const limit = set ?? DEFAULT_MAX_DIRECT_BODY_BYTES;
    for (const route of hosts.flatMap((vh) => vh.routes)) {
      const action = route.action;
      if (action.kind !== 'direct' || !action.body || !action.bodyAt) continue;
      const bytes = Buffer.byteLength(action.body);
      if (bytes <= limit) continue;
      diagnostics.push(
        fieldError(
          'resolve',
          action.bodyAt.origin,
          action.bodyAt.path,
          set === undefined
            ? `the body is ${bytes} bytes, and Envoy refuses a route configuration with a direct response body over ${limit} bytes`
            : `the body is ${bytes} bytes, over the ${limit} bytes of ${shown}'s routeOptions.maxDirectResponseBodySizeBytes, so Envoy would refuse its route configuration`,
          gateway
            ? `shorten the body, serve it from an upstream, or raise routeOptions.maxDirectResponseBodySizeBytes on ${shown}`
            : 'shorten the body, or serve it from an upstream',
        ),
      );
    }
  }
}
