/**
 * Upstreams: explicit Upstream resources plus one discovered Upstream per `v1`
 * Service port, named `<namespace>-<service>-<port>` in the control plane's
 * namespace (as Gloo's discovery does). An explicit Upstream of the same name wins.
 * A reference into `gloo-system` (Gloo's default discovery namespace) that
 * names no Upstream there is looked up in the control plane's namespace.
 *
 * A Service's cluster reaches its pods by their addresses (EDS, endpoints:
 * ./endpoints.ts) when EndpointSlices of the Service are among the inputs.
 * Otherwise Envoy resolves the Service's DNS name (STRICT_DNS). An
 * ExternalName Service is its external name, resolved by Envoy.
 */
import { isIP } from 'node:net';
import type { Origin } from '../diagnostics.js';
import { upstreamTranscoder } from './upstream-transcoder.js';
import type { Resource } from '../validate/validate.js';
import type { ServiceSpec } from '../kinds/kubernetes.js';
import type { UpstreamSpec } from '../kinds/upstream.js';
import type { ResourceIndex } from './index.js';
import { upstreamTls } from './tls.js';
import { awsUpstream } from './aws-upstream.js';
import { upstreamPolicy } from './upstream-policy.js';
import { failoverOf } from './upstream-failover.js';
import type { NamespacedName, SubsetsIR, UpstreamIR, UpstreamTlsIR } from '../ir/model.js';

export interface UpstreamCatalog {
  /** The upstream a `{name, namespace}` reference names, if any; a list when the name is ambiguous. */
  lookup(ref: NamespacedName): UpstreamIR | UpstreamIR[] | undefined;
  /** The cluster for a route's `kube: {ref, port}` (a Service port). */
  servicePort(ref: NamespacedName, port: number): { upstream?: UpstreamIR; knownPorts?: number[] };
  /** The Service ports whose discovered Upstream has this name, in whatever namespace it was looked for (for the error of a reference in the wrong one). */
  discoveredFrom(name: string): ServicePort[];
  /** The Upstream resources' upstreams, whether routes use them or not (for their checks). */
  explicit: readonly UpstreamIR[];
}

export interface ServicePort {
  service: NamespacedName;
  port: number;
}

/** Where Gloo writes discovered Upstreams unless its Settings say otherwise (`discoveryNamespace`): Gloo manifests reference them there. */
export const GLOO_DISCOVERY_NAMESPACE = 'gloo-system';

export function discoveredUpstreamName(namespace: string, service: string, port: number): string {
  return `${namespace}-${service}-${port}`;
}

/** How Services are reached. */
export interface ServiceTargets {
  clusterDomain: string;
  /** `namespace/name` of the Services with EndpointSlices among the inputs. */
  sliced: ReadonlySet<string>;
}

/**
 * Upstreams built in earlier runs, by the resource they come from, so an
 * unchanged Upstream or Service port gives the same object (what lets later
 * stages tell it is unchanged). An upstream is made again when its target
 * (which may depend on its Service) is not the one it was made with.
 */
export class UpstreamMemo {
  readonly explicit = new WeakMap<Resource, UpstreamIR>();
  readonly discovered = new WeakMap<Resource, Map<number, UpstreamIR>>();
}

/** `upstream`, unless its target differs from `target`. */
function keptFor(upstream: UpstreamIR | undefined, target: UpstreamIR['target']): UpstreamIR | undefined {
  return upstream && JSON.stringify(upstream.target) === JSON.stringify(target) ? upstream : undefined;
}

/** Whether a Service's cluster reaches its pods (EDS): its EndpointSlices are among the inputs, and it is no ExternalName Service. `spec`: the Service's, when it is among the inputs. */
export function reachesPods(targets: ServiceTargets, service: NamespacedName, spec: ServiceSpec | undefined): boolean {
  return spec?.type !== 'ExternalName' && targets.sliced.has(`${service.namespace}/${service.name}`);
}

export function buildUpstreamCatalog(
  index: ResourceIndex,
  targets: ServiceTargets,
  controlPlaneNamespace: string,
  memo = new UpstreamMemo(),
): UpstreamCatalog {
  const dnsName = (service: NamespacedName) => `${service.name}.${service.namespace}.svc.${targets.clusterDomain}`;
  /** How a Service port is reached; `spec` is the Service's, when it is among the inputs. */
  const target = (service: NamespacedName, port: number, spec: ServiceSpec | undefined): UpstreamIR['target'] => {
    if (spec?.type === 'ExternalName' && spec.externalName) return { kind: 'dns', host: spec.externalName, port };
    if (!reachesPods(targets, service, spec)) return { kind: 'dns', host: dnsName(service), port };
    const portName = spec?.ports?.find((p) => p.port === port)?.name;
    return { kind: 'service', service, host: dnsName(service), port, ...(portName ? { portName } : {}) };
  };

  const explicit = new Map<string, UpstreamIR>();
  for (const r of index.all('Upstream')) {
    const spec = r.spec as UpstreamSpec;
    const serviceRef = spec.kube && {
      name: spec.kube.serviceName,
      namespace: spec.kube.serviceNamespace ?? r.namespace,
    };
    const kubeTarget =
      serviceRef &&
      target(serviceRef, spec.kube!.servicePort, index.get('Service', serviceRef)?.spec as ServiceSpec | undefined);
    let upstream = memo.explicit.get(r);
    if (!upstream || (kubeTarget && !keptFor(upstream, kubeTarget)))
      memo.explicit.set(r, (upstream = explicitUpstream(r, kubeTarget)));
    explicit.set(`${r.namespace}/${r.name}`, upstream);
  }

  /**
   * Discovered upstreams by `<namespace>-<service>-<port>`. Names can collide
   * (Service `c` in `a-b` and Service `b-c` in `a` both give `a-b-c-80`), so a
   * name maps to every Service port that produces it, and routes find theirs
   * by Service, never by name.
   */
  const discovered = new Map<string, { upstream: UpstreamIR; from: ServicePort }[]>();
  const byServicePort = new Map<string, UpstreamIR>();
  const servicePorts = new Map<string, number[]>();
  for (const svc of index.all('Service')) {
    const spec = svc.spec as ServiceSpec;
    const ports = (spec.ports ?? []).map((p) => p.port);
    servicePorts.set(`${svc.namespace}/${svc.name}`, ports);
    let built = memo.discovered.get(svc);
    if (!built) memo.discovered.set(svc, (built = new Map()));
    for (const port of ports) {
      const name = discoveredUpstreamName(svc.namespace, svc.name, port);
      const portTarget = target({ name: svc.name, namespace: svc.namespace }, port, spec);
      let upstream = keptFor(built.get(port), portTarget);
      if (!upstream)
        built.set(
          port,
          (upstream = { name, namespace: controlPlaneNamespace, origin: svc.origin, target: portTarget }),
        );
      byServicePort.set(`${svc.namespace}/${svc.name}/${port}`, upstream);
      discovered.set(name, [
        ...(discovered.get(name) ?? []),
        { upstream, from: { service: { namespace: svc.namespace, name: svc.name }, port } },
      ]);
    }
  }

  const lookup = (ref: NamespacedName): UpstreamIR | UpstreamIR[] | undefined => {
    const own = explicit.get(`${ref.namespace}/${ref.name}`);
    if (own) return own;
    if (ref.namespace === GLOO_DISCOVERY_NAMESPACE && ref.namespace !== controlPlaneNamespace)
      return lookup({ name: ref.name, namespace: controlPlaneNamespace });
    const found = (discovered.get(ref.name) ?? [])
      .filter((d) => ref.namespace === controlPlaneNamespace || ref.namespace === d.from.service.namespace)
      .map((d) => d.upstream);
    return found.length > 1 ? found : found[0];
  };

  return {
    lookup,
    servicePort(ref, port) {
      const ports = servicePorts.get(`${ref.namespace}/${ref.name}`);
      if (!ports) return {};
      if (!ports.includes(port)) return { knownPorts: ports };
      const name = discoveredUpstreamName(ref.namespace, ref.name, port);
      // An explicit Upstream of the discovered name (in the control plane namespace) overrides discovery.
      return {
        upstream:
          explicit.get(`${controlPlaneNamespace}/${name}`) ??
          byServicePort.get(`${ref.namespace}/${ref.name}/${port}`)!,
        knownPorts: ports,
      };
    },
    discoveredFrom: (name) => (discovered.get(name) ?? []).map((d) => d.from),
    explicit: [...explicit.values()],
  };
}

/** `kubeTarget`: how the Service port of a kube Upstream is reached. */
function explicitUpstream(r: Resource, kubeTarget: UpstreamIR['target'] | undefined): UpstreamIR {
  const spec = r.spec as UpstreamSpec;
  const origin: Origin = r.origin;
  const policy = upstreamPolicy(spec);
  // Its problems are reported by upstreamTranscoderProblems, once per Upstream.
  const transcoder = upstreamTranscoder(r, []);
  const transport = {
    // gRPC behind the transcoder needs HTTP/2: Gloo sets it on such an Upstream.
    ...(spec.useHttp2 || transcoder ? { http2: true } : {}),
    ...(transcoder ? { grpcJsonTranscoder: transcoder } : {}),
    ...(spec.sslConfig ? { tls: upstreamTls(spec.sslConfig, r) } : staticTls(spec)),
    ...(policy ? { policy } : {}),
    ...(spec.httpProxyHostname
      ? {
          tunnel: {
            hostname: spec.httpProxyHostname,
            headers: (spec.httpConnectHeaders ?? []).map((h) => ({ key: h.key, value: h.value ?? '' })),
          },
        }
      : {}),
  };
  // Fields that do not apply beside aws are errors (aws-lambda.ts); only the cluster policy is kept.
  if (spec.aws)
    return { name: r.name, namespace: r.namespace, origin, ...(policy ? { policy } : {}), ...awsUpstream(spec.aws, r) };
  if (spec.static) {
    return {
      name: r.name,
      namespace: r.namespace,
      origin,
      ...transport,
      target: {
        kind: 'static',
        hosts: spec.static.hosts.map((h) => ({
          address: h.addr,
          port: h.port,
          ...(h.loadBalancingWeight !== undefined ? { weight: h.loadBalancingWeight } : {}),
        })),
      },
      ...(spec.failover ? { failover: failoverOf(spec.failover) } : {}),
    };
  }
  const kube = spec.kube!;
  const target = kubeTarget!;
  // A selector and subsets choose among pods: they mean something only where the pods' endpoints are known (upstream-selector.ts reports the rest).
  if (target.kind !== 'service') return { name: r.name, namespace: r.namespace, origin, ...transport, target };
  return {
    name: r.name,
    namespace: r.namespace,
    origin,
    ...transport,
    target,
    ...(kube.selector && Object.keys(kube.selector).length > 0 ? { selector: kube.selector } : {}),
    ...(kube.subsetSpec ? { subsets: subsetsOf(kube.subsetSpec) } : {}),
  };
}

function subsetsOf(spec: NonNullable<NonNullable<UpstreamSpec['kube']>['subsetSpec']>): SubsetsIR {
  return {
    selectors: spec.selectors.map((s) => ({
      keys: s.keys,
      ...(s.singleHostPerSubset ? { singleHostPerSubset: true } : {}),
    })),
    ...(spec.fallbackPolicy && spec.fallbackPolicy !== 'ANY_ENDPOINT' ? { fallbackPolicy: spec.fallbackPolicy } : {}),
    ...(spec.defaultSubset ? { defaultSubset: spec.defaultSubset.values } : {}),
  };
}

/** Gloo's static useTls, and its default (TLS when a host's port is 443): TLS without verification, SNI the first DNS name. */
function staticTls(spec: UpstreamSpec): { tls?: UpstreamTlsIR } {
  const hosts = spec.static?.hosts;
  if (!hosts || spec.static!.useTls === false) return {};
  if (spec.static!.useTls !== true && !hosts.some((h) => h.port === 443)) return {};
  const sni = hosts.find((h) => isIP(h.addr) === 0)?.addr;
  return {
    tls: { ...(sni ? { sni } : {}), parameters: {}, alpnProtocols: [], verifySubjectAltNames: [], oneWayTls: false },
  };
}
