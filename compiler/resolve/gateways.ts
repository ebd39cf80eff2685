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
import type { GatewaySpec, HttpGatewaySpec, MatchedGatewaySpec } from '../kinds/gateway.js';
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

/** Gloo's defaults: its gateway-proxy Deployment's name, bound to every address. */
export const DEFAULT_PROXY_NAME = 'gateway-proxy';
export const DEFAULT_BIND_ADDRESS = '::';

const WILDCARDS = new Set(['::', '0.0.0.0']);

export function resolveGateways(
  index: ResourceIndex,
  virtualHosts: VirtualHostIR[],
  findCluster: FindCluster,
  diagnostics: Diagnostic[],
): GatewayIR[] {
  const gateways = index.all('Gateway');
  if (gateways.length === 0) {
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
  for (const resource of gateways) {
    const resolved = resolveGateway(resource, index, hosts, findCluster, diagnostics);
    if (!resolved) continue;
    const gw = resolved.gw;
    for (const scope of resolved.domainScopes)
      claimDomains(
        scope.map((name) => hosts.get(name)!),
        diagnostics,
        reportedDomains,
      );
    for (const vh of gw.virtualHosts) served.add(vh);
    if (gw.virtualHosts.length === 0 && gw.tcpHosts.length === 0)
      diagnostics.push(
        asWarning(
          fieldError(
            'resolve',
            resource.origin,
            ['spec', (resource.spec as unknown as GatewaySpec).hybridGateway ? 'hybridGateway' : 'httpGateway'],
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

/** A Gateway resolved, with the sets of virtual hosts whose domains must not clash (the Gateway's, or each matched gateway's). */
interface Resolved {
  gw: GatewayIR;
  domainScopes: string[][];
}

function resolveGateway(
  resource: Resource,
  index: ResourceIndex,
  hosts: ReadonlyMap<string, VirtualHostIR>,
  findCluster: FindCluster,
  diagnostics: Diagnostic[],
): Resolved | undefined {
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
      Boolean(spec.tcpGateway ?? spec.hybridGateway?.matchedGateways.some((m) => m.tcpGateway)),
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
    const tcp = tcpHosts(resource, ['spec', 'tcpGateway'], spec.tcpGateway.tcpHosts, [], findCluster, diagnostics);
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
  if (spec.hybridGateway)
    return hybridGateway(resource, common, spec.hybridGateway.matchedGateways, index, hosts, findCluster, diagnostics);
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
  if (http.virtualServices?.length && http.virtualServiceSelector) {
    diagnostics.push(
      fieldError(
        'resolve',
        resource.origin,
        [...base, 'virtualServiceSelector'],
        'virtualServices and virtualServiceSelector are both set (Gloo would use the selector and ignore the list)',
        'keep one of them',
      ),
    );
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
    const selector = Object.entries(http.virtualServiceSelector ?? {});
    selected = index.all('VirtualService').filter((vs) => {
      if (!anyNamespace && !namespaces.includes(vs.namespace)) return false;
      const labels = ((vs.value.metadata as { labels?: Record<string, string> | null } | undefined)?.labels ??
        {}) as Record<string, string>;
      return selector.every(([k, v]) => labels[k] === v) && hasTls(vs) === ssl;
    });
  }
  const chosen = new Set(selected);
  return index
    .all('VirtualService')
    .filter((vs) => chosen.has(vs))
    .map((vs) => `${vs.namespace}.${vs.name}`)
    .filter((name) => hosts.has(name));
}

/**
 * A hybridGateway's matched gateways: each an HTTP chain or TCP host chains on
 * the one listener, matched by its matcher's SNI domains and source prefixes.
 * A matched httpGateway serves VirtualServices without sslConfig; the TLS is
 * its matcher's sslConfig (Gloo ignores a VirtualService's sslConfig there).
 */
function hybridGateway(
  resource: Resource,
  common: Omit<GatewayIR, 'virtualHosts' | 'chains' | 'tcpHosts'>,
  matched: MatchedGatewaySpec[],
  index: ResourceIndex,
  hosts: ReadonlyMap<string, VirtualHostIR>,
  findCluster: FindCluster,
  diagnostics: Diagnostic[],
): Resolved {
  const chains: GatewayChainIR[] = [];
  const tcp: TcpHostIR[] = [];
  const claims: SniClaim[] = [];
  const domainScopes: string[][] = [];
  matched.forEach((m, i) => {
    const base = ['spec', 'hybridGateway', 'matchedGateways', i];
    const checked = sourceRanges(
      m.matcher?.sourcePrefixRanges ?? [],
      resource.origin,
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
            resource.origin,
            [...base, 'matcher', 'sslConfig'],
            "a matched tcpGateway's TLS and SNI are its TCP hosts' sslConfig",
            'move the sslConfig to the tcpHosts',
          ),
        );
      const hosts = tcpHosts(
        resource,
        [...base, 'tcpGateway'],
        m.tcpGateway.tcpHosts,
        ranges,
        findCluster,
        diagnostics,
      );
      const options = tcpProxyOptions(
        m.tcpGateway.options,
        resource.origin,
        [...base, 'tcpGateway', 'options'],
        diagnostics,
      );
      tcp.push(...withTcpOptions(hosts.hosts, options));
      claim(hosts.claims);
      return;
    }
    const http = m.httpGateway!;
    const virtualHosts =
      selectVirtualServices(resource, http, [...base, 'httpGateway'], index, hosts, false, diagnostics, true) ?? [];
    domainScopes.push(virtualHosts);
    const terminates = sslConfig?.secretRef ?? sslConfig?.sslFiles;
    if (sslConfig && !terminates)
      diagnostics.push(
        fieldError(
          'resolve',
          resource.origin,
          [...base, 'matcher', 'sslConfig'],
          'a matched httpGateway is matched by SNI only over TLS, and this sslConfig has no secretRef or sslFiles to terminate it with',
          'add a secretRef (a kubernetes.io/tls Secret) or sslFiles, or remove sslConfig',
        ),
      );
    const tls = terminates
      ? downstreamTls(sslConfig as SslConfigSpec, resource, [...base, 'matcher', 'sslConfig'])
      : undefined;
    const shared = httpChainSettings(http, [...base, 'httpGateway'], resource, findCluster, diagnostics, index);
    chains.push({
      routes: `${common.listener}-${i}-routes`,
      virtualHosts,
      ...shared,
      ...(tls ? { tls } : {}),
      ...(ranges.length > 0 ? { sourcePrefixRanges: ranges } : {}),
    });
    claim([
      {
        names: sslConfig?.sniDomains ?? [],
        sources: ranges,
        origin: resource.origin,
        path: [...base, 'matcher'],
        label: `matched gateway ${i + 1}`,
      },
    ]);
  });
  sniClashes(claims, 'give each matched gateway (or TCP host) its own sniDomains or sourcePrefixRanges', diagnostics);
  const virtualHosts = [...new Set(chains.flatMap((c) => c.virtualHosts))];
  return { gw: { ...common, virtualHosts, chains, tcpHosts: tcp }, domainScopes };
}
