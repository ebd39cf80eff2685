/**
 * Gateway resources -> GatewayIR: which VirtualServices each one serves, on
 * which address and port. Without any Gateway the model has none, and
 * translate makes the default gateway (every VirtualService on the listener
 * the options set), so inputs without Gateways compile as before.
 */
import { isIP } from 'node:net';
import { asWarning, fieldError, quote, type Diagnostic } from '../diagnostics.js';
import type { GatewayIR } from '../ir/model.js';
import type { Resource } from '../validate/validate.js';
import { ResourceIndex, refOf, showRef, type Ref } from './index.js';

/** Gloo's defaults: its gateway-proxy Deployment's name, bound to every address. */
export const DEFAULT_PROXY_NAME = 'gateway-proxy';
export const DEFAULT_BIND_ADDRESS = '::';

interface GatewaySpec {
  ssl?: boolean;
  bindAddress?: string;
  bindPort: number;
  proxyNames?: string[];
  httpGateway: { virtualServices?: Ref[]; virtualServiceSelector?: Record<string, string>; virtualServiceNamespaces?: string[] };
}

const WILDCARDS = new Set(['::', '0.0.0.0']);

export function resolveGateways(index: ResourceIndex, diagnostics: Diagnostic[]): GatewayIR[] {
  const gateways = index.all('Gateway');
  if (gateways.length === 0) return [];
  const out: GatewayIR[] = [];
  const served = new Set<string>();
  const byPort = new Map<number, { gw: GatewayIR; resource: Resource }[]>();
  let proxies: { names: string; resource: Resource } | undefined;
  for (const resource of gateways) {
    const gw = resolveGateway(resource, index, diagnostics);
    if (!gw) continue;
    for (const vh of gw.virtualHosts) served.add(vh);
    if (gw.virtualHosts.length === 0) diagnostics.push(asWarning(fieldError('resolve', resource.origin, ['spec', 'httpGateway'], 'this Gateway serves no VirtualService: its listener answers every request with 404', 'list VirtualServices in httpGateway.virtualServices or fix httpGateway.virtualServiceSelector')));
    // Two listeners on one port of one Envoy: the second bind fails (a wildcard address covers the others).
    const samePort = byPort.get(gw.port) ?? [];
    const clash = samePort.find((o) => o.gw.address === gw.address || WILDCARDS.has(o.gw.address) || WILDCARDS.has(gw.address));
    if (clash) {
      diagnostics.push(fieldError('resolve', resource.origin, ['spec', 'bindPort'], `Gateway ${showRef(resource)} and Gateway ${showRef(clash.resource)} (${clash.resource.origin.file}:${clash.resource.origin.lineOf(['spec', 'bindPort'])}) both bind port ${gw.port} (${quote(gw.address)} and ${quote(clash.gw.address)})`, 'give one of them another bindPort'));
      continue;
    }
    byPort.set(gw.port, [...samePort, { gw, resource }]);
    const names = [...gw.proxyNames].sort().join(',');
    if (proxies && proxies.names !== names) {
      diagnostics.push(fieldError('resolve', resource.origin, ['spec', 'proxyNames'], `proxyNames [${names}] differ from Gateway ${showRef(proxies.resource)}'s [${proxies.names}]: every Envoy is served every Gateway (proxy fleets are not implemented yet)`, 'give every Gateway the same proxyNames (or leave it out: ["gateway-proxy"])'));
      continue;
    }
    proxies ??= { names, resource };
    out.push(gw);
  }
  for (const vs of index.all('VirtualService')) {
    if (served.has(`${vs.namespace}.${vs.name}`)) continue;
    diagnostics.push(asWarning(fieldError('resolve', vs.origin, ['metadata', 'name'], `VirtualService ${showRef(vs)} is served by no Gateway: no Envoy routes its domains`, "name it in a Gateway's httpGateway.virtualServices, or give it labels a virtualServiceSelector matches")));
  }
  return out;
}

function resolveGateway(resource: Resource, index: ResourceIndex, diagnostics: Diagnostic[]): GatewayIR | undefined {
  const spec = resource.spec as unknown as GatewaySpec;
  if (spec.ssl) {
    diagnostics.push(fieldError('resolve', resource.origin, ['spec', 'ssl'], 'ssl: true is not supported yet: TLS termination (VirtualService sslConfig) is not implemented', 'leave ssl out and terminate TLS in front of Envoy (a load balancer or an ingress)'));
    return undefined;
  }
  const address = spec.bindAddress ?? DEFAULT_BIND_ADDRESS;
  if (isIP(address) === 0) {
    diagnostics.push(fieldError('resolve', resource.origin, ['spec', 'bindAddress'], `${quote(address)} is not an IP address: Envoy binds a listener to an address, not a name`, 'write "::" (every address, IPv4 too), "0.0.0.0" (every IPv4 address) or one of the host\'s addresses'));
    return undefined;
  }
  const http = spec.httpGateway;
  const base = ['spec', 'httpGateway'];
  if (http.virtualServices?.length && http.virtualServiceSelector) {
    diagnostics.push(fieldError('resolve', resource.origin, [...base, 'virtualServiceSelector'], 'virtualServices and virtualServiceSelector are both set (Gloo would use the selector and ignore the list)', 'keep one of them'));
    return undefined;
  }
  let selected: Resource[];
  if (http.virtualServices?.length) {
    selected = [];
    http.virtualServices.forEach((raw, i) => {
      const vs = index.get('VirtualService', refOf(raw, resource));
      if (vs) selected.push(vs);
      else diagnostics.push(fieldError('resolve', resource.origin, [...base, 'virtualServices', i], `VirtualService ${showRef(refOf(raw, resource))} does not exist`, 'define the VirtualService or fix the reference'));
    });
  } else {
    const namespaces = http.virtualServiceNamespaces;
    const anyNamespace = !namespaces || namespaces.includes('*');
    const selector = Object.entries(http.virtualServiceSelector ?? {});
    selected = index.all('VirtualService').filter((vs) => {
      if (!anyNamespace && !namespaces.includes(vs.namespace)) return false;
      const labels = ((vs.value.metadata as { labels?: Record<string, string> | null } | undefined)?.labels ?? {}) as Record<string, string>;
      return selector.every(([k, v]) => labels[k] === v);
    });
  }
  const chosen = new Set(selected);
  return {
    name: `${resource.namespace}.${resource.name}`,
    origin: resource.origin,
    listener: `listener-${address}-${spec.bindPort}`,
    address,
    port: spec.bindPort,
    proxyNames: spec.proxyNames ?? [DEFAULT_PROXY_NAME],
    // In the virtual hosts' order (namespace, then name), each once.
    virtualHosts: index.all('VirtualService').filter((vs) => chosen.has(vs)).map((vs) => `${vs.namespace}.${vs.name}`),
  };
}
