/**
 * TCP and TLS on a Gateway: a tcpGateway's hosts, the filter chains of a
 * listener's HTTPS hosts by SNI, and the domains and SNI names two of them
 * would both claim.
 */
import { fieldError, placeOf, quote, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import type { CidrIR, GatewayChainIR, TcpHostIR, VirtualHostIR } from '../ir/model.js';
import type { TcpGatewaySpec } from '../kinds/gateway.js';
import type { SslConfigSpec } from '../kinds/tls.js';
import type { Resource } from '../validate/validate.js';
import { type Ref } from './index.js';
import { downstreamTls } from './tls.js';
import type { TcpDestinationOf } from './tcp-destinations.js';

/** The cluster of the Upstream `ref` names at `path` of `from`, taken into the output; undefined after reporting. */
/** `grpc`: the Upstream must speak HTTP/2. */
export type FindCluster = (from: Resource, path: FieldPath, ref: Ref, grpc?: boolean) => string | undefined;

/** A tcpGateway's hosts: each proxied to its destination; with a secretRef TLS is terminated, otherwise passed through. */
export function tcpHosts(
  resource: Resource,
  base: FieldPath,
  specs: TcpGatewaySpec['tcpHosts'],
  sourcePrefixRanges: CidrIR[],
  destinationOf: TcpDestinationOf,
  diagnostics: Diagnostic[],
): { hosts: TcpHostIR[]; claims: SniClaim[] } {
  const hosts: TcpHostIR[] = [];
  const claims: SniClaim[] = [];
  specs.forEach((h, i) => {
    const path = [...base, 'tcpHosts', i];
    const destination = destinationOf(resource, [...path, 'destination'], h.destination);
    const serverNames = h.sslConfig?.sniDomains ?? [];
    claims.push({
      names: serverNames,
      sources: sourcePrefixRanges,
      origin: resource.origin,
      path: [...path, 'sslConfig', 'sniDomains'],
      label: `TCP host ${quote(h.name)}`,
    });
    if (!destination) return;
    // No ALPN unless asked for: the bytes inside are not HTTP's.
    const tls =
      h.sslConfig?.secretRef || h.sslConfig?.sslFiles
        ? {
            ...downstreamTls(h.sslConfig as SslConfigSpec, resource, [...path, 'sslConfig']),
            alpnProtocols: h.sslConfig.alpnProtocols ?? [],
          }
        : undefined;
    hosts.push({
      name: h.name,
      ...destination,
      serverNames,
      ...(tls ? { tls } : {}),
      ...(sourcePrefixRanges.length > 0 ? { sourcePrefixRanges } : {}),
    });
  });
  return { hosts, claims };
}

/** A filter chain's SNI match, for the clash check. */
export interface SniClaim {
  /** Empty: any SNI. */
  names: string[];
  /** Source prefixes it also matches on; empty: any. */
  sources: CidrIR[];
  origin: Origin;
  path: FieldPath;
  label: string;
}

/** Envoy refuses two filter chains matching one server name (or two without any): an error on the later naming the earlier. */
export function sniClashes(claims: SniClaim[], hint: string, diagnostics: Diagnostic[]): void {
  const claimed = new Map<string, SniClaim>();
  for (const claim of claims) {
    const names = claim.names.map((d) => d.toLowerCase());
    // Chains with other source prefixes are told apart by them.
    const sources = claim.sources
      .map((r) => `${r.address}/${r.prefixLen}`)
      .sort()
      .join(',');
    for (const name of names.length > 0 ? names : ['']) {
      const owner = claimed.get(`${name}|${sources}`);
      if (!owner) {
        claimed.set(`${name}|${sources}`, claim);
        continue;
      }
      const what =
        (name === '' ? 'has no sniDomains' : `names SNI domain ${quote(name)}`) +
        (sources ? ` and source prefixes ${sources}` : '');
      diagnostics.push(
        fieldError(
          'resolve',
          claim.origin,
          claim.path,
          `${claim.label} ${what}, as ${owner.label} (${placeOf(owner.origin, owner.path)}) does, on the same Gateway: Envoy could not tell their connections apart`,
          hint,
        ),
      );
    }
  }
}

/**
 * One filter chain per distinct sslConfig, matched by its SNI domains, each
 * with a route configuration of its own virtual hosts. Envoy refuses two
 * chains matching one server name, so a shared SNI domain (or two chains
 * without sniDomains) is an error naming both VirtualServices.
 */
export function tlsChains(
  listener: string,
  hosts: VirtualHostIR[],
  shared: Pick<GatewayChainIR, 'http' | 'options'>,
  diagnostics: Diagnostic[],
): GatewayChainIR[] {
  const byConfig = new Map<string, { chain: GatewayChainIR; first: VirtualHostIR }>();
  for (const vh of hosts) {
    // The same settings (where they are written aside) share a chain.
    const key = JSON.stringify({ ...vh.tls, origin: undefined, path: undefined });
    const found = byConfig.get(key);
    if (found) found.chain.virtualHosts.push(vh.name);
    else
      byConfig.set(key, {
        chain: { routes: `${listener}-${vh.name}-routes`, tls: vh.tls!, virtualHosts: [vh.name], ...shared },
        first: vh,
      });
  }
  sniClashes(
    [...byConfig.values()].map(({ chain, first }) => ({
      names: chain.tls!.sniDomains,
      sources: [],
      origin: first.origin,
      path: ['spec', 'sslConfig', 'sniDomains'],
      label: `the sslConfig of VirtualService ${first.namespace}/${first.name.slice(first.namespace.length + 1)}`,
    })),
    'give each sslConfig its own sniDomains, or give both VirtualServices the same sslConfig',
    diagnostics,
  );
  return [...byConfig.values()].map((c) => c.chain);
}

/**
 * Two virtual hosts on one listener claiming one domain (compared as Envoy
 * does, ignoring case): an error on the second naming the first. `reported`
 * keeps a virtual host's own duplicate from being reported once per Gateway.
 */
export function claimDomains(hosts: VirtualHostIR[], diagnostics: Diagnostic[], reported = new Set<string>()): void {
  const owners = new Map<string, VirtualHostIR>();
  for (const vh of hosts) {
    vh.domains.forEach((domain, i) => {
      const key = domain.toLowerCase();
      const owner = owners.get(key);
      if (!owner) {
        owners.set(key, vh);
        return;
      }
      const id = `${vh.name}|${i}|${owner.name}`;
      if (reported.has(id)) return;
      reported.add(id);
      const by =
        owner === vh
          ? 'this VirtualService already lists it'
          : `VirtualService ${owner.namespace}/${owner.name.slice(owner.namespace.length + 1)} (${placeOf(owner.origin, ['spec', 'virtualHost', 'domains'])}) already claims it`;
      diagnostics.push(
        fieldError(
          'resolve',
          vh.origin,
          ['spec', 'virtualHost', 'domains', i],
          `domain ${quote(domain)} is claimed twice: ${by}`,
          'a domain may belong to one virtual host only; Envoy rejects duplicates',
        ),
      );
    });
  }
}
