/**
 * Gateway resources -> GatewayIR: which VirtualServices each one serves, on
 * which address and port. Without any Gateway the model has none, and
 * translate makes the default gateway (every VirtualService on the listener
 * the options set), so inputs without Gateways compile as before.
 * A Gateway with ssl: true serves only VirtualServices with sslConfig, one
 * filter chain per distinct sslConfig; a plain one only those without (Gloo's rule).
 */
import { isIP } from 'node:net';
import { parseDuration } from '../../contract/proto3-json.js';
import { asWarning, fieldError, quote, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import type { CidrIR, FileAccessLogIR, GatewayChainIR, GatewayIR, HttpSettingsIR, TcpHostIR, VirtualHostIR } from '../ir/model.js';
import type { GatewaySpec, HttpConnectionManagerSpec, HttpGatewaySpec, MatchedGatewaySpec, TcpGatewaySpec } from '../kinds/gateway.js';
import type { SslConfigSpec } from '../kinds/tls.js';
import type { Resource } from '../validate/validate.js';
import { ResourceIndex, refOf, showRef, type Ref } from './index.js';
import { downstreamTls } from './tls.js';

/** The cluster of the Upstream `ref` names at `path` of `from`, taken into the output; undefined after reporting. */
export type FindCluster = (from: Resource, path: FieldPath, ref: Ref) => string | undefined;

/** Gloo's defaults: its gateway-proxy Deployment's name, bound to every address. */
export const DEFAULT_PROXY_NAME = 'gateway-proxy';
export const DEFAULT_BIND_ADDRESS = '::';

/** The connection manager settings that are durations (the schema types them as strings). */
const DURATIONS = ['idleTimeout', 'streamIdleTimeout', 'requestTimeout', 'requestHeadersTimeout', 'drainTimeout', 'delayedCloseTimeout', 'maxConnectionDuration', 'maxStreamDuration'] as const;

const WILDCARDS = new Set(['::', '0.0.0.0']);

export function resolveGateways(index: ResourceIndex, virtualHosts: VirtualHostIR[], findCluster: FindCluster, diagnostics: Diagnostic[]): GatewayIR[] {
  const gateways = index.all('Gateway');
  if (gateways.length === 0) {
    for (const vh of virtualHosts) {
      if (vh.tls) diagnostics.push(fieldError('resolve', vh.origin, ['spec', 'sslConfig'], 'this VirtualService has sslConfig, but there is no Gateway: the default gateway speaks plain HTTP', 'add a Gateway with ssl: true (and one without for the plain VirtualServices), or remove sslConfig'));
    }
    return [];
  }
  const hosts = new Map(virtualHosts.map((vh) => [vh.name, vh]));
  const reportedDomains = new Set<string>();
  const out: GatewayIR[] = [];
  const served = new Set<string>();
  const byPort = new Map<number, { gw: GatewayIR; resource: Resource }[]>();
  for (const resource of gateways) {
    const resolved = resolveGateway(resource, index, hosts, findCluster, diagnostics);
    if (!resolved) continue;
    const gw = resolved.gw;
    for (const scope of resolved.domainScopes) claimDomains(scope.map((name) => hosts.get(name)!), diagnostics, reportedDomains);
    for (const vh of gw.virtualHosts) served.add(vh);
    if (gw.virtualHosts.length === 0 && gw.tcpHosts.length === 0) diagnostics.push(asWarning(fieldError('resolve', resource.origin, ['spec', (resource.spec as unknown as GatewaySpec).hybridGateway ? 'hybridGateway' : 'httpGateway'], 'this Gateway serves no VirtualService: its listener answers every request with 404', 'list VirtualServices in httpGateway.virtualServices or fix httpGateway.virtualServiceSelector')));
    // Two listeners on one port of one Envoy: the second bind fails (a wildcard address covers the others). Envoys of other proxies bind their own.
    const samePort = (byPort.get(gw.port) ?? []).filter((o) => o.gw.proxyNames.some((p) => gw.proxyNames.includes(p)));
    const clash = samePort.find((o) => o.gw.address === gw.address || WILDCARDS.has(o.gw.address) || WILDCARDS.has(gw.address));
    if (clash) {
      const proxy = clash.gw.proxyNames.find((p) => gw.proxyNames.includes(p))!;
      diagnostics.push(fieldError('resolve', resource.origin, ['spec', 'bindPort'], `Gateway ${showRef(resource)} and Gateway ${showRef(clash.resource)} (${clash.resource.origin.file}:${clash.resource.origin.lineOf(['spec', 'bindPort'])}) both bind port ${gw.port} (${quote(gw.address)} and ${quote(clash.gw.address)}) on proxy ${quote(proxy)}`, 'give one of them another bindPort, or other proxyNames'));
      continue;
    }
    byPort.set(gw.port, [...(byPort.get(gw.port) ?? []), { gw, resource }]);
    out.push(gw);
  }
  for (const vs of index.all('VirtualService')) {
    if (served.has(`${vs.namespace}.${vs.name}`)) continue;
    diagnostics.push(asWarning(fieldError('resolve', vs.origin, ['metadata', 'name'], `VirtualService ${showRef(vs)} is served by no Gateway: no Envoy routes its domains`, "name it in a Gateway's httpGateway.virtualServices, or give it labels a virtualServiceSelector matches")));
  }
  return out;
}

/** A Gateway resolved, with the sets of virtual hosts whose domains must not clash (the Gateway's, or each matched gateway's). */
interface Resolved {
  gw: GatewayIR;
  domainScopes: string[][];
}

function resolveGateway(resource: Resource, index: ResourceIndex, hosts: ReadonlyMap<string, VirtualHostIR>, findCluster: FindCluster, diagnostics: Diagnostic[]): Resolved | undefined {
  const spec = resource.spec as unknown as GatewaySpec;
  const ssl = spec.ssl ?? false;
  const address = spec.bindAddress ?? DEFAULT_BIND_ADDRESS;
  if (isIP(address) === 0) {
    diagnostics.push(fieldError('resolve', resource.origin, ['spec', 'bindAddress'], `${quote(address)} is not an IP address: Envoy binds a listener to an address, not a name`, 'write "::" (every address, IPv4 too), "0.0.0.0" (every IPv4 address) or one of the host\'s addresses'));
    return undefined;
  }
  const listener = `listener-${address}-${spec.bindPort}`;
  const common = {
    name: `${resource.namespace}.${resource.name}`,
    origin: resource.origin,
    listener,
    address,
    port: spec.bindPort,
    proxyNames: spec.proxyNames ?? [DEFAULT_PROXY_NAME],
    proxyProtocol: spec.useProxyProto ?? false,
    accessLogs: accessLogs(spec.options?.accessLoggingService?.accessLog ?? [], resource.origin, diagnostics),
  };
  if (ssl && !spec.httpGateway) diagnostics.push(fieldError('resolve', resource.origin, ['spec', 'ssl'], 'ssl applies to an httpGateway; TCP hosts and matched gateways terminate TLS with their own sslConfig', 'remove ssl and give the TCP hosts (or matchers) an sslConfig with secretRef'));
  if (spec.tcpGateway) {
    const tcp = tcpHosts(resource, ['spec', 'tcpGateway'], spec.tcpGateway.tcpHosts, [], findCluster, diagnostics);
    sniClashes(tcp.claims, 'give each TCP host its own sniDomains', diagnostics);
    return { gw: { ...common, virtualHosts: [], chains: [], tcpHosts: tcp.hosts }, domainScopes: [] };
  }
  if (spec.hybridGateway) return hybridGateway(resource, common, spec.hybridGateway.matchedGateways, index, hosts, findCluster, diagnostics);
  const http = spec.httpGateway!;
  const base = ['spec', 'httpGateway'];
  const virtualHosts = selectVirtualServices(resource, http, base, index, hosts, ssl, diagnostics);
  if (!virtualHosts) return undefined;
  const settings = httpSettings(http.options?.httpConnectionManagerSettings, resource.origin, [...base, 'options', 'httpConnectionManagerSettings'], diagnostics);
  // A chain or setting in error is reported and still kept, so its VirtualServices count as served (the compile fails anyway).
  const chains = ssl ? tlsChains(listener, virtualHosts.map((name) => hosts.get(name)!), settings, diagnostics) : [{ routes: `${listener}-routes`, virtualHosts, http: settings }];
  return { gw: { ...common, virtualHosts, chains, tcpHosts: [] }, domainScopes: [virtualHosts] };
}

/**
 * The VirtualServices an httpGateway serves, in the virtual hosts' order, each
 * once: those with sslConfig when `ssl`, those without otherwise. Undefined
 * after reporting a selection that cannot be made.
 */
function selectVirtualServices(resource: Resource, http: HttpGatewaySpec, base: FieldPath, index: ResourceIndex, hosts: ReadonlyMap<string, VirtualHostIR>, ssl: boolean, diagnostics: Diagnostic[], hybrid = false): string[] | undefined {
  if (http.virtualServices?.length && http.virtualServiceSelector) {
    diagnostics.push(fieldError('resolve', resource.origin, [...base, 'virtualServiceSelector'], 'virtualServices and virtualServiceSelector are both set (Gloo would use the selector and ignore the list)', 'keep one of them'));
    return undefined;
  }
  let selected: Resource[];
  // Only VirtualServices that resolved have a host; the others have their errors already.
  const hasTls = (vs: Resource) => hosts.get(`${vs.namespace}.${vs.name}`)?.tls !== undefined;
  if (http.virtualServices?.length) {
    selected = [];
    http.virtualServices.forEach((raw, i) => {
      const vs = index.get('VirtualService', refOf(raw, resource));
      const at = [...base, 'virtualServices', i];
      if (!vs) diagnostics.push(fieldError('resolve', resource.origin, at, `VirtualService ${showRef(refOf(raw, resource))} does not exist`, 'define the VirtualService or fix the reference'));
      else if (hosts.has(`${vs.namespace}.${vs.name}`) && hasTls(vs) !== ssl) {
        if (hybrid) diagnostics.push(fieldError('resolve', resource.origin, at, `VirtualService ${showRef(vs)} has sslConfig: a matched gateway takes its TLS from its matcher, and would not use it`, 'serve it from a Gateway with ssl: true, or remove its sslConfig and put the TLS settings on the matcher'));
        else if (ssl) diagnostics.push(fieldError('resolve', resource.origin, at, `VirtualService ${showRef(vs)} has no sslConfig, and this Gateway has ssl: true (it serves TLS only)`, 'give the VirtualService an sslConfig, or list it in a Gateway without ssl'));
        else diagnostics.push(fieldError('resolve', resource.origin, at, `VirtualService ${showRef(vs)} has sslConfig, and this Gateway speaks plain HTTP`, 'list it in a Gateway with ssl: true, or remove its sslConfig'));
      } else selected.push(vs);
    });
  } else {
    const namespaces = http.virtualServiceNamespaces;
    const anyNamespace = !namespaces || namespaces.includes('*');
    const selector = Object.entries(http.virtualServiceSelector ?? {});
    selected = index.all('VirtualService').filter((vs) => {
      if (!anyNamespace && !namespaces.includes(vs.namespace)) return false;
      const labels = ((vs.value.metadata as { labels?: Record<string, string> | null } | undefined)?.labels ?? {}) as Record<string, string>;
      return selector.every(([k, v]) => labels[k] === v) && hasTls(vs) === ssl;
    });
  }
  const chosen = new Set(selected);
  return index.all('VirtualService').filter((vs) => chosen.has(vs)).map((vs) => `${vs.namespace}.${vs.name}`).filter((name) => hosts.has(name));
}

/**
 * A hybridGateway's matched gateways: each an HTTP chain or TCP host chains on
 * the one listener, matched by its matcher's SNI domains and source prefixes.
 * A matched httpGateway serves VirtualServices without sslConfig; the TLS is
 * its matcher's sslConfig (Gloo ignores a VirtualService's sslConfig there).
 */
function hybridGateway(resource: Resource, common: Omit<GatewayIR, 'virtualHosts' | 'chains' | 'tcpHosts'>, matched: MatchedGatewaySpec[], index: ResourceIndex, hosts: ReadonlyMap<string, VirtualHostIR>, findCluster: FindCluster, diagnostics: Diagnostic[]): Resolved {
  const chains: GatewayChainIR[] = [];
  const tcp: TcpHostIR[] = [];
  const claims: SniClaim[] = [];
  const domainScopes: string[][] = [];
  matched.forEach((m, i) => {
    const base = ['spec', 'hybridGateway', 'matchedGateways', i];
    const checked = sourceRanges(m.matcher?.sourcePrefixRanges ?? [], resource.origin, [...base, 'matcher', 'sourcePrefixRanges'], diagnostics);
    const ranges = checked ?? [];
    // Ranges in error would make false clashes: the chain is left out of the check.
    const claim = (c: SniClaim[]) => checked && claims.push(...c);
    const sslConfig = m.matcher?.sslConfig;
    if (m.tcpGateway) {
      if (sslConfig) diagnostics.push(fieldError('resolve', resource.origin, [...base, 'matcher', 'sslConfig'], "a matched tcpGateway's TLS and SNI are its TCP hosts' sslConfig", 'move the sslConfig to the tcpHosts'));
      const hosts = tcpHosts(resource, [...base, 'tcpGateway'], m.tcpGateway.tcpHosts, ranges, findCluster, diagnostics);
      tcp.push(...hosts.hosts);
      claim(hosts.claims);
      return;
    }
    const http = m.httpGateway!;
    const virtualHosts = selectVirtualServices(resource, http, [...base, 'httpGateway'], index, hosts, false, diagnostics, true) ?? [];
    domainScopes.push(virtualHosts);
    if (sslConfig && !sslConfig.secretRef) diagnostics.push(fieldError('resolve', resource.origin, [...base, 'matcher', 'sslConfig'], 'a matched httpGateway is matched by SNI only over TLS, and this sslConfig has no secretRef to terminate it with', 'add a secretRef (a kubernetes.io/tls Secret), or remove sslConfig'));
    const tls = sslConfig?.secretRef ? downstreamTls(sslConfig as SslConfigSpec, resource, [...base, 'matcher', 'sslConfig']) : undefined;
    const settings = httpSettings(http.options?.httpConnectionManagerSettings, resource.origin, [...base, 'httpGateway', 'options', 'httpConnectionManagerSettings'], diagnostics);
    chains.push({ routes: `${common.listener}-${i}-routes`, virtualHosts, http: settings, ...(tls ? { tls } : {}), ...(ranges.length > 0 ? { sourcePrefixRanges: ranges } : {}) });
    claim([{ names: sslConfig?.sniDomains ?? [], sources: ranges, origin: resource.origin, path: [...base, 'matcher'], label: `matched gateway ${i + 1}` }]);
  });
  sniClashes(claims, 'give each matched gateway (or TCP host) its own sniDomains or sourcePrefixRanges', diagnostics);
  const virtualHosts = [...new Set(chains.flatMap((c) => c.virtualHosts))];
  return { gw: { ...common, virtualHosts, chains, tcpHosts: tcp }, domainScopes };
}

/** Gloo's CidrRange: an IP address and a prefix length within its family's; undefined after reporting one that is not. */
function sourceRanges(specs: { addressPrefix: string; prefixLen?: number }[], origin: Origin, path: FieldPath, diagnostics: Diagnostic[]): CidrIR[] | undefined {
  const ranges = specs.flatMap((r, i) => {
    const family = isIP(r.addressPrefix);
    const max = family === 6 ? 128 : 32;
    const prefixLen = r.prefixLen ?? max;
    if (family === 0) diagnostics.push(fieldError('resolve', origin, [...path, i, 'addressPrefix'], `${quote(r.addressPrefix)} is not an IP address`, 'write the network address, e.g. 10.0.0.0 with prefixLen 8'));
    else if (prefixLen > max) diagnostics.push(fieldError('resolve', origin, [...path, i, 'prefixLen'], `prefixLen ${prefixLen} is longer than an IPv${family} address (${max} bits)`, `use 0 to ${max}`));
    else return [{ address: r.addressPrefix, prefixLen }];
    return [];
  });
  return ranges.length === specs.length ? ranges : undefined;
}

/** A tcpGateway's hosts: each proxied to its Upstream; with a secretRef TLS is terminated, otherwise passed through. */
function tcpHosts(resource: Resource, base: FieldPath, specs: TcpGatewaySpec['tcpHosts'], sourcePrefixRanges: CidrIR[], findCluster: FindCluster, diagnostics: Diagnostic[]): { hosts: TcpHostIR[]; claims: SniClaim[] } {
  const hosts: TcpHostIR[] = [];
  const claims: SniClaim[] = [];
  specs.forEach((h, i) => {
    const path = [...base, 'tcpHosts', i];
    const cluster = findCluster(resource, [...path, 'destination', 'single', 'upstream'], h.destination.single.upstream);
    const serverNames = h.sslConfig?.sniDomains ?? [];
    claims.push({ names: serverNames, sources: sourcePrefixRanges, origin: resource.origin, path: [...path, 'sslConfig', 'sniDomains'], label: `TCP host ${quote(h.name)}` });
    if (!cluster) return;
    // No ALPN unless asked for: the bytes inside are not HTTP's.
    const tls = h.sslConfig?.secretRef ? { ...downstreamTls(h.sslConfig as SslConfigSpec, resource, [...path, 'sslConfig']), alpnProtocols: h.sslConfig.alpnProtocols ?? [] } : undefined;
    hosts.push({ name: h.name, cluster, serverNames, ...(tls ? { tls } : {}), ...(sourcePrefixRanges.length > 0 ? { sourcePrefixRanges } : {}) });
  });
  return { hosts, claims };
}

/** A filter chain's SNI match, for the clash check. */
interface SniClaim {
  /** Empty: any SNI. */
  names: string[];
  /** Source prefixes it also matches on; empty: any. */
  sources: CidrIR[];
  origin: Origin;
  path: FieldPath;
  label: string;
}

/** Envoy refuses two filter chains matching one server name (or two without any): an error on the later naming the earlier. */
function sniClashes(claims: SniClaim[], hint: string, diagnostics: Diagnostic[]): void {
  const claimed = new Map<string, SniClaim>();
  for (const claim of claims) {
    const names = claim.names.map((d) => d.toLowerCase());
    // Chains with other source prefixes are told apart by them.
    const sources = claim.sources.map((r) => `${r.address}/${r.prefixLen}`).sort().join(',');
    for (const name of names.length > 0 ? names : ['']) {
      const owner = claimed.get(`${name}|${sources}`);
      if (!owner) {
        claimed.set(`${name}|${sources}`, claim);
        continue;
      }
      const what = (name === '' ? 'has no sniDomains' : `names SNI domain ${quote(name)}`) + (sources ? ` and source prefixes ${sources}` : '');
      diagnostics.push(fieldError('resolve', claim.origin, claim.path, `${claim.label} ${what}, as ${owner.label} (${where(owner.origin, owner.path)}) does, on the same Gateway: Envoy could not tell their connections apart`, hint));
    }
  }
}

/**
 * One filter chain per distinct sslConfig, matched by its SNI domains, each
 * with a route configuration of its own virtual hosts. Envoy refuses two
 * chains matching one server name, so a shared SNI domain (or two chains
 * without sniDomains) is an error naming both VirtualServices.
 */
function tlsChains(listener: string, hosts: VirtualHostIR[], http: HttpSettingsIR, diagnostics: Diagnostic[]): GatewayChainIR[] {
  const byConfig = new Map<string, { chain: GatewayChainIR; first: VirtualHostIR }>();
  for (const vh of hosts) {
    // The same settings (where they are written aside) share a chain.
    const key = JSON.stringify({ ...vh.tls, origin: undefined, path: undefined });
    const found = byConfig.get(key);
    if (found) found.chain.virtualHosts.push(vh.name);
    else byConfig.set(key, { chain: { routes: `${listener}-${vh.name}-routes`, tls: vh.tls!, virtualHosts: [vh.name], http }, first: vh });
  }
  sniClashes(
    [...byConfig.values()].map(({ chain, first }) => ({ names: chain.tls!.sniDomains, sources: [], origin: first.origin, path: ['spec', 'sslConfig', 'sniDomains'], label: `the sslConfig of VirtualService ${first.namespace}/${first.name.slice(first.namespace.length + 1)}` })),
    'give each sslConfig its own sniDomains, or give both VirtualServices the same sslConfig',
    diagnostics,
  );
  return [...byConfig.values()].map((c) => c.chain);
}

function where(origin: Origin, path: FieldPath): string {
  return `${origin.file}:${origin.lineOf(path)}`;
}

function httpSettings(spec: HttpConnectionManagerSpec | undefined, origin: Origin, path: FieldPath, diagnostics: Diagnostic[]): HttpSettingsIR {
  for (const field of DURATIONS) {
    const text = spec?.[field];
    if (text === undefined) continue;
    const nanos = parseDuration(text);
    if (nanos === undefined || nanos < 0n) {
      diagnostics.push(fieldError('resolve', origin, [...path, field], `${quote(text)} is not a duration`, 'write a number with a unit, e.g. "60s", "0.250s", "250ms" or "1m30s" ("0s": none)'));
    }
  }
  return { ...spec };
}

function accessLogs(logs: NonNullable<NonNullable<GatewaySpec['options']>['accessLoggingService']>['accessLog'], origin: Origin, diagnostics: Diagnostic[]): FileAccessLogIR[] {
  return logs.map(({ fileSink: f }, i) => {
    if (f.stringFormat !== undefined && f.jsonFormat !== undefined) {
      diagnostics.push(fieldError('resolve', origin, ['spec', 'options', 'accessLoggingService', 'accessLog', i, 'fileSink', 'jsonFormat'], 'stringFormat and jsonFormat are both set; a file sink has one format', 'keep one of them'));
    }
    return {
      path: f.path,
      ...(f.stringFormat !== undefined ? { format: { kind: 'text' as const, text: f.stringFormat } } : f.jsonFormat !== undefined ? { format: { kind: 'json' as const, json: f.jsonFormat } } : {}),
    };
  });
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
      const by = owner === vh ? 'this VirtualService already lists it' : `VirtualService ${owner.namespace}/${owner.name.slice(owner.namespace.length + 1)} (${where(owner.origin, ['spec', 'virtualHost', 'domains'])}) already claims it`;
      diagnostics.push(fieldError('resolve', vh.origin, ['spec', 'virtualHost', 'domains', i], `domain ${quote(domain)} is claimed twice: ${by}`, 'a domain may belong to one virtual host only; Envoy rejects duplicates'));
    });
  }
}
