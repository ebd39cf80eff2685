/**
 * Gateway resources -> GatewayIR: which VirtualServices each one serves, on
 * which address and port. Without any Gateway the model has none, and
 * translate makes the default gateway (every VirtualService on the listener
 * the options set), so inputs without Gateways compile as before.
 * A Gateway with ssl: true serves only VirtualServices with sslConfig, one
 * filter chain per distinct sslConfig; a plain one only those without (Gloo's rule).
 */
import { isIP } from 'node:net';
import { asWarning, fieldError, placeOf, quote, type Diagnostic, type FieldPath } from '../diagnostics.js';
import type { GatewayChainIR, GatewayIR, TcpHostIR, VirtualHostIR } from '../ir/model.js';
import type { GatewaySpec, HttpGatewaySpec } from '../kinds/gateway.js';
import type { SslConfigSpec } from '../kinds/tls.js';
import type { Resource } from '../validate/validate.js';
import { ResourceIndex, refOf, showRef } from './index.js';
import { downstreamTls } from './tls.js';
import { httpSettings, listenerFields, sourceRanges } from './gateway-settings.js';
import { routeConfigOptions } from './route-configuration.js';
import { earlyHeaders } from './early-headers.js';
import { httpListenerOptions } from './gateway-http-options.js';
import { withTracing } from './tracing.js';
import { accessLogs } from './access-logs.js';
import { tcpProxyOptions } from './tcp-options.js';
import type { TcpProxyOptionsIR } from '../ir/tcp-options.js';
import { FindCluster, SniClaim, claimDomains, sniClashes, tcpHosts, tlsChains } from './gateway-tls.js';
import { matchedEntries, unselectedDelegates, type MatchedEntry } from './delegated-gateways.js';
import { checkExpressions, labelsOf, matchesLabels } from './label-expressions.js';
import type { TcpDestinationOf } from './tcp-destinations.js';

/** Gloo's defaults: its gateway-proxy Deployment's name, bound to every address. */
export const DEFAULT_PROXY_NAME = 'gateway-proxy';
export const DEFAULT_BIND_ADDRESS = '::';

const WILDCARDS = new Set(['::', '0.0.0.0']);

export function resolveGateways(
  index: ResourceIndex,
  virtualHosts: VirtualHostIR[],
  findCluster: FindCluster,
  tcpDestination: TcpDestinationOf,
  diagnostics: Diagnostic[],
): GatewayIR[] {
  const gateways = index.all('Gateway');
  if (gateways.length === 0) {
    unselectedDelegates(index, new Set(), diagnostics);
    for (const vh of virtualHosts) {
      if (vh.tls)
        diagnostics.push(
          fieldError(
            'resolve',
            vh.origin,
            ['spec', 'sslConfig'],
            'this VirtualService has sslConfig, but there is no Gateway: the default gateway speaks plain HTTP',
            'add a Gateway with ssl: true (and one without for the plain VirtualServices), or remove sslConfig',
          ),
        );
    }
    return [];
  }
  const hosts = new Map(virtualHosts.map((vh) => [vh.name, vh]));
  const reportedDomains = new Set<string>();
  const out: GatewayIR[] = [];
  const served = new Set<string>();
  const byPort = new Map<number, { gw: GatewayIR; resource: Resource }[]>();
  const delegates = new Set<Resource>();
  for (const resource of gateways) {
    const resolved = resolveGateway(resource, index, hosts, { findCluster, tcpDestination }, delegates, diagnostics);
    if (!resolved) continue;
    const gw = resolved.gw;
    for (const scope of resolved.domainScopes)
      claimDomains(
        scope.map((name) => hosts.get(name)!),
        diagnostics,
        reportedDomains,
      );
    for (const vh of gw.virtualHosts) served.add(vh);
    // A tcpGateway's hosts that failed have their errors.
    const spec = resource.spec as unknown as GatewaySpec;
    if (gw.virtualHosts.length === 0 && gw.tcpHosts.length === 0 && !spec.tcpGateway)
      diagnostics.push(
        asWarning(
          fieldError(
            'resolve',
            resource.origin,
            ['spec', spec.hybridGateway ? 'hybridGateway' : 'httpGateway'],
            'this Gateway serves no VirtualService: its listener answers every request with 404',
            'list VirtualServices in httpGateway.virtualServices or fix httpGateway.virtualServiceSelector',
          ),
        ),
      );
    // Two listeners on one port of one Envoy: the second bind fails (a wildcard address covers the others). Envoys of other proxies bind their own.
    const samePort = (byPort.get(gw.port) ?? []).filter((o) => o.gw.proxyNames.some((p) => gw.proxyNames.includes(p)));
    const clash = samePort.find(
      (o) => o.gw.address === gw.address || WILDCARDS.has(o.gw.address) || WILDCARDS.has(gw.address),
    );
    if (clash) {
      const proxy = clash.gw.proxyNames.find((p) => gw.proxyNames.includes(p))!;
      diagnostics.push(
        fieldError(
          'resolve',
          resource.origin,
          ['spec', 'bindPort'],
          `Gateway ${showRef(resource)} and Gateway ${showRef(clash.resource)} (${placeOf(clash.resource.origin, ['spec', 'bindPort'])}) both bind port ${gw.port} (${quote(gw.address)} and ${quote(clash.gw.address)}) on proxy ${quote(proxy)}`,
          'give one of them another bindPort, or other proxyNames',
        ),
      );
      continue;
    }
    byPort.set(gw.port, [...(byPort.get(gw.port) ?? []), { gw, resource }]);
    out.push(gw);
  }
  unselectedDelegates(index, delegates, diagnostics);
  for (const vs of index.all('VirtualService')) {
    if (served.has(`${vs.namespace}.${vs.name}`)) continue;
    diagnostics.push(
      asWarning(
        fieldError(
          'resolve',
          vs.origin,
          ['metadata', 'name'],
          `VirtualService ${showRef(vs)} is served by no Gateway: no Envoy routes its domains`,
          "name it in a Gateway's httpGateway.virtualServices, or give it labels a virtualServiceSelector matches",
        ),
      ),
    );
  }
  return out;
}

const withTcpOptions = (hosts: TcpHostIR[], options: TcpProxyOptionsIR | undefined) =>
  options ? hosts.map((h) => ({ ...h, options })) : hosts;

const optionalListenerFields = (fields: ReturnType<typeof listenerFields>) =>
  fields ? { listenerFields: fields } : {};

/** What a Gateway's references resolve to: an Upstream's cluster, a TCP host's destination. */
interface Targets {
  findCluster: FindCluster;
  tcpDestination: TcpDestinationOf;
}

/** A Gateway resolved, with the sets of virtual hosts whose domains must not clash (the Gateway's, or each matched gateway's). */
interface Resolved {
  gw: GatewayIR;
  domainScopes: string[][];
}

function resolveGateway(
  resource: Resource,
  index: ResourceIndex,
  hosts: ReadonlyMap<string, VirtualHostIR>,
  targets: Targets,
  delegates: Set<Resource>,
  diagnostics: Diagnostic[],
): Resolved | undefined {
  const { findCluster, tcpDestination } = targets;
  const spec = resource.spec as unknown as GatewaySpec;
  const ssl = spec.ssl ?? false;
  const address = spec.bindAddress ?? DEFAULT_BIND_ADDRESS;
  if (isIP(address) === 0) {
    diagnostics.push(
      fieldError(
        'resolve',
        resource.origin,
        ['spec', 'bindAddress'],
        `${quote(address)} is not an IP address: Envoy binds a listener to an address, not a name`,
        'write "::" (every address, IPv4 too), "0.0.0.0" (every IPv4 address) or one of the host\'s addresses',
      ),
    );
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
    ...routeConfigOptions(spec.routeOptions),
    accessLogs: accessLogs(
      spec.options?.accessLoggingService?.accessLog ?? [],
      resource,
      'accessLoggingService',
      Boolean(
        spec.tcpGateway ??
        spec.hybridGateway?.delegatedTcpGateways ??
        spec.hybridGateway?.matchedGateways?.some((m) => m.tcpGateway),
      ),
      findCluster,
      diagnostics,
    ),
    ...optionalListenerFields(
      listenerFields(
        spec.options,
        accessLogs(
          spec.options?.listenerAccessLoggingService?.accessLog ?? [],
          resource,
          'listenerAccessLoggingService',
          true,
          findCluster,
          diagnostics,
        ),
      ),
    ),
  };
  if (ssl && !spec.httpGateway)
    diagnostics.push(
      fieldError(
        'resolve',
        resource.origin,
        ['spec', 'ssl'],
        'ssl applies to an httpGateway; TCP hosts and matched gateways terminate TLS with their own sslConfig',
        'remove ssl and give the TCP hosts (or matchers) an sslConfig with secretRef',
      ),
    );
  if (spec.tcpGateway) {
    const tcp = tcpHosts(resource, ['spec', 'tcpGateway'], spec.tcpGateway.tcpHosts, [], tcpDestination, diagnostics);
    sniClashes(tcp.claims, 'give each TCP host its own sniDomains', diagnostics);
    const options = tcpProxyOptions(
      spec.tcpGateway.options,
      resource.origin,
      ['spec', 'tcpGateway', 'options'],
      diagnostics,
    );
    return {
      gw: { ...common, virtualHosts: [], chains: [], tcpHosts: withTcpOptions(tcp.hosts, options) },
      domainScopes: [],
    };
  }
  if (spec.hybridGateway) {
    const entries = matchedEntries(resource, spec.hybridGateway, index, findCluster, diagnostics);
    if (!entries || (entries.length === 0 && !spec.hybridGateway.matchedGateways)) return undefined;
    for (const e of entries) delegates.add(e.owner);
    return hybridGateway(resource, common, entries, index, hosts, targets, diagnostics);
  }
  const http = spec.httpGateway!;
  const base = ['spec', 'httpGateway'];
  const virtualHosts = selectVirtualServices(resource, http, base, index, hosts, ssl, diagnostics);
  if (!virtualHosts) return undefined;
  const shared = httpChainSettings(http, base, resource, findCluster, diagnostics, index);
  // A chain or setting in error is reported and still kept, so its VirtualServices count as served (the compile fails anyway).
  const chains = ssl
    ? tlsChains(
        listener,
        virtualHosts.map((name) => hosts.get(name)!),
        shared,
        diagnostics,
      )
    : [{ routes: `${listener}-routes`, virtualHosts, ...shared }];
  return { gw: { ...common, virtualHosts, chains, tcpHosts: [] }, domainScopes: [virtualHosts] };
}

/** What every filter chain of an httpGateway (`base` its path) carries: the connection manager's settings with tracing, and the options' filters. */
function httpChainSettings(
  http: HttpGatewaySpec,
  base: FieldPath,
  resource: Resource,
  findCluster: FindCluster,
  diagnostics: Diagnostic[],
  index: ResourceIndex,
): Pick<GatewayChainIR, 'http' | 'options'> {
  const hcmPath = [...base, 'options', 'httpConnectionManagerSettings'];
  const hcm = http.options?.httpConnectionManagerSettings;
  const settings = withTracing(
    httpSettings(hcm, resource.origin, hcmPath, diagnostics),
    hcm?.tracing,
    resource,
    [...hcmPath, 'tracing'],
    findCluster,
    diagnostics,
  );
  const options = httpListenerOptions(http.options, resource.origin, [...base, 'options'], diagnostics, (p, ref) =>
    findCluster(resource, p, ref, true),
  );
  const early = hcm?.earlyHeaderManipulation;
  const withEarly = early
    ? {
        ...settings,
        earlyHeaders: earlyHeaders(early, [...hcmPath, 'earlyHeaderManipulation'], resource, index, diagnostics),
      }
    : settings;
  return { http: withEarly, ...(options ? { options } : {}) };
}

/**
 * The VirtualServices an httpGateway serves, in the virtual hosts' order, each
 * once: those with sslConfig when `ssl`, those without otherwise. Undefined
 * after reporting a selection that cannot be made.
 */
function selectVirtualServices(
  resource: Resource,
  http: HttpGatewaySpec,
  base: FieldPath,
  index: ResourceIndex,
  hosts: ReadonlyMap<string, VirtualHostIR>,
  ssl: boolean,
  diagnostics: Diagnostic[],
  hybrid = false,
): string[] | undefined {
  // Gloo takes the expressions, else the selector, else the list, and ignores the rest.
  const ways = (['virtualServices', 'virtualServiceSelector', 'virtualServiceExpressions'] as const).filter((k) =>
    k === 'virtualServices' ? http.virtualServices?.length : http[k],
  );
  if (ways.length > 1) {
    const what = {
      virtualServices: 'the list',
      virtualServiceSelector: 'the selector',
      virtualServiceExpressions: 'the expressions',
    };
    const ignored = ways
      .slice(0, -1)
      .reverse()
      .map((w) => what[w]);
    diagnostics.push(
      fieldError(
        'resolve',
        resource.origin,
        [...base, ways.at(-1)!],
        `${ways.join(' and ')} are ${ways.length > 2 ? 'all' : 'both'} set (Gloo would use ${what[ways.at(-1)!]} and ignore ${ignored.join(' and ')})`,
        'keep one of them',
      ),
    );
    return undefined;
  }
  const expressions = http.virtualServiceExpressions?.expressions ?? [];
  const expressionsPath = [...base, 'virtualServiceExpressions', 'expressions'];
  if (!checkExpressions(expressions, resource.origin, expressionsPath, diagnostics)) return undefined;
  let selected: Resource[];
  // Only VirtualServices that resolved have a host; the others have their errors already.
  const hasTls = (vs: Resource) => hosts.get(`${vs.namespace}.${vs.name}`)?.tls !== undefined;
  if (http.virtualServices?.length) {
    selected = [];
    http.virtualServices.forEach((raw, i) => {
      const vs = index.get('VirtualService', refOf(raw, resource));
      const at = [...base, 'virtualServices', i];
      if (!vs)
        diagnostics.push(
          fieldError(
            'resolve',
            resource.origin,
            at,
            `VirtualService ${showRef(refOf(raw, resource))} does not exist`,
            'define the VirtualService or fix the reference',
          ),
        );
      else if (hosts.has(`${vs.namespace}.${vs.name}`) && hasTls(vs) !== ssl) {
        if (hybrid)
          diagnostics.push(
            fieldError(
              'resolve',
              resource.origin,
              at,
              `VirtualService ${showRef(vs)} has sslConfig: a matched gateway takes its TLS from its matcher, and would not use it`,
              'serve it from a Gateway with ssl: true, or remove its sslConfig and put the TLS settings on the matcher',
            ),
          );
        else if (ssl)
          diagnostics.push(
            fieldError(
              'resolve',
              resource.origin,
              at,
              `VirtualService ${showRef(vs)} has no sslConfig, and this Gateway has ssl: true (it serves TLS only)`,
              'give the VirtualService an sslConfig, or list it in a Gateway without ssl',
            ),
          );
        else
          diagnostics.push(
            fieldError(
              'resolve',
              resource.origin,
              at,
              `VirtualService ${showRef(vs)} has sslConfig, and this Gateway speaks plain HTTP`,
              'list it in a Gateway with ssl: true, or remove its sslConfig',
            ),
          );
      } else selected.push(vs);
    });
  } else {
    const namespaces = http.virtualServiceNamespaces;
    const anyNamespace = !namespaces || namespaces.includes('*');
    selected = index
      .all('VirtualService')
      .filter(
        (vs) =>
          (anyNamespace || namespaces.includes(vs.namespace)) &&
          matchesLabels(labelsOf(vs), http.virtualServiceSelector, expressions) &&
          hasTls(vs) === ssl,
      );
  }
  const chosen = new Set(selected);
  return index
    .all('VirtualService')
    .filter((vs) => chosen.has(vs))
    .map((vs) => `${vs.namespace}.${vs.name}`)
    .filter((name) => hosts.has(name));
}

/**
 * A hybridGateway's matched gateways (inline or delegated): each an HTTP chain
 * or TCP host chains on the one listener, matched by its matcher's SNI domains
 * and source prefixes. A matched httpGateway serves VirtualServices without
 * sslConfig; the TLS is its matcher's sslConfig (Gloo ignores a
 * VirtualService's sslConfig there). Errors go to the resource each is written in.
 */
function hybridGateway(
  resource: Resource,
  common: Omit<GatewayIR, 'virtualHosts' | 'chains' | 'tcpHosts'>,
  entries: MatchedEntry[],
  index: ResourceIndex,
  hosts: ReadonlyMap<string, VirtualHostIR>,
  { findCluster, tcpDestination }: Targets,
  diagnostics: Diagnostic[],
): Resolved {
  const chains: GatewayChainIR[] = [];
  const tcp: TcpHostIR[] = [];
  const claims: SniClaim[] = [];
  const domainScopes: string[][] = [];
  for (const m of entries) {
    const { owner, base } = m;
    const checked = sourceRanges(
      m.matcher?.sourcePrefixRanges ?? [],
      owner.origin,
      [...base, 'matcher', 'sourcePrefixRanges'],
      diagnostics,
    );
    const ranges = checked ?? [];
    // Ranges in error would make false clashes: the chain is left out of the check.
    const claim = (c: SniClaim[]) => checked && claims.push(...c);
    const sslConfig = m.matcher?.sslConfig;
    if (m.tcpGateway) {
      if (sslConfig)
        diagnostics.push(
          fieldError(
            'resolve',
            owner.origin,
            [...base, 'matcher', 'sslConfig'],
            "a matched tcpGateway's TLS and SNI are its TCP hosts' sslConfig",
            'move the sslConfig to the tcpHosts',
          ),
        );
      const hosts = tcpHosts(
        owner,
        [...base, 'tcpGateway'],
        m.tcpGateway.tcpHosts,
        ranges,
        tcpDestination,
        diagnostics,
      );
      const options = tcpProxyOptions(
        m.tcpGateway.options,
        owner.origin,
        [...base, 'tcpGateway', 'options'],
        diagnostics,
      );
      tcp.push(...withTcpOptions(hosts.hosts, options));
      claim(hosts.claims);
      continue;
    }
    const http = m.httpGateway!;
    const virtualHosts =
      selectVirtualServices(owner, http, [...base, 'httpGateway'], index, hosts, false, diagnostics, true) ?? [];
    domainScopes.push(virtualHosts);
    const terminates = sslConfig?.secretRef ?? sslConfig?.sslFiles;
    if (sslConfig && !terminates)
      diagnostics.push(
        fieldError(
          'resolve',
          owner.origin,
          [...base, 'matcher', 'sslConfig'],
          'a matched httpGateway is matched by SNI only over TLS, and this sslConfig has no secretRef or sslFiles to terminate it with',
          'add a secretRef (a kubernetes.io/tls Secret) or sslFiles, or remove sslConfig',
        ),
      );
    const tlsAt = m.tlsFrom ?? { resource: owner, path: [...base, 'matcher', 'sslConfig'] };
    const tls = terminates ? downstreamTls(sslConfig as SslConfigSpec, tlsAt.resource, tlsAt.path) : undefined;
    // What the Gateway handed down was checked where it is written.
    const own: Diagnostic[] = [];
    const shared = httpChainSettings(http, [...base, 'httpGateway'], owner, findCluster, own, index);
    diagnostics.push(...(m.inherited ? own.filter((d) => !m.inherited!(d)) : own));
    chains.push({
      routes: `${common.listener}-${m.key}-routes`,
      virtualHosts,
      ...shared,
      ...(tls ? { tls } : {}),
      ...(ranges.length > 0 ? { sourcePrefixRanges: ranges } : {}),
    });
    claim([
      {
        names: sslConfig?.sniDomains ?? [],
        sources: ranges,
        origin: owner.origin,
        path: [...base, 'matcher'],
        label: m.label,
      },
    ]);
  }
  sniClashes(claims, 'give each matched gateway (or TCP host) its own sniDomains or sourcePrefixRanges', diagnostics);
  const virtualHosts = [...new Set(chains.flatMap((c) => c.virtualHosts))];
  return { gw: { ...common, virtualHosts, chains, tcpHosts: tcp }, domainScopes };
}
