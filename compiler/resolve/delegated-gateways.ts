/**
 * A hybrid Gateway's matched gateways, written inline (matchedGateways) or
 * delegated to MatchableHttpGateway and MatchableTcpGateway resources
 * (delegatedHttpGateways / delegatedTcpGateways), as one list of entries that
 * resolve/gateways.ts compiles alike: a delegated gateway becomes the filter
 * chain a matchedGateway with its matcher and gateway would. Selection is
 * Gloo's (gateway_selector.go): a ref, or a selector's namespaces (none or
 * "*": every one), labels and expressions; an HTTP one only when its
 * matcher's sslConfig is there exactly when the Gateway's delegatedHttpGateways
 * has one. The Gateway's httpConnectionManagerSettings and sslConfig are
 * merged into each selected MatchableHttpGateway's, field by field, the
 * child's winning unless preventChildOverrides (merge.go).
 */
import {
  asWarning,
  fieldError,
  formatPath,
  isError,
  notFound,
  type Diagnostic,
  type FieldPath,
} from '../diagnostics.js';
import type { GatewaySelectorSpec } from '../kinds/label-selectors.js';
import type { HttpGatewaySpec, HybridGatewaySpec, MatchedGatewaySpec, TcpGatewaySpec } from '../kinds/gateway.js';
import type { MatchableHttpGatewaySpec, MatchableTcpGatewaySpec } from '../kinds/matchable-gateways.js';
import type { Resource } from '../validate/validate.js';
import { httpSettings } from './gateway-settings.js';
import type { FindCluster } from './gateway-tls.js';
import { ResourceIndex, refOf, showRef, type Ref } from './index.js';
import { checkExpressions, labelsOf, matchesLabels } from './label-expressions.js';
import { withTracing } from './tracing.js';

/** One matched gateway of a hybrid Gateway, inline or delegated. */
export interface MatchedEntry {
  /** The resource it is written in (the Gateway, or the MatchableHttpGateway / MatchableTcpGateway): its errors go there. */
  owner: Resource;
  /** Its place in `owner`: the matcher is at `[...base, 'matcher']`, the gateway at `[...base, 'httpGateway']` or `'tcpGateway'`. */
  base: FieldPath;
  /** How an error about its matcher names it. */
  label: string;
  /** What tells its route configuration's name apart: `<listener>-<key>-routes`. */
  key: string;
  matcher?: MatchedGatewaySpec['matcher'];
  httpGateway?: HttpGatewaySpec;
  tcpGateway?: TcpGatewaySpec;
  /** Where the TLS certificate of a merged sslConfig is written, when the Gateway handed it down. */
  tlsFrom?: { resource: Resource; path: FieldPath };
  /** Whether a diagnostic about the merged settings is about a value the Gateway handed down (reported at the Gateway). */
  inherited?: (d: Diagnostic) => boolean;
}

const HYBRID = ['spec', 'hybridGateway'];

/** The entries of a hybridGateway: its matchedGateways, or the gateways it delegates to; undefined after reporting both. */
export function matchedEntries(
  gateway: Resource,
  hybrid: HybridGatewaySpec,
  index: ResourceIndex,
  findCluster: FindCluster,
  diagnostics: Diagnostic[],
): MatchedEntry[] | undefined {
  const delegates = hybrid.delegatedHttpGateways ?? hybrid.delegatedTcpGateways;
  if (hybrid.matchedGateways && delegates) {
    diagnostics.push(
      fieldError(
        'resolve',
        gateway.origin,
        [...HYBRID, hybrid.delegatedHttpGateways ? 'delegatedHttpGateways' : 'delegatedTcpGateways'],
        'matchedGateways and delegated gateways are both set (Gloo would use matchedGateways and ignore the delegated ones)',
        'keep one of them: move the matched gateways into MatchableHttpGateway / MatchableTcpGateway resources, or drop the delegation',
      ),
    );
    return undefined;
  }
  if (!delegates)
    return (hybrid.matchedGateways ?? []).map((m, i) => ({
      owner: gateway,
      base: [...HYBRID, 'matchedGateways', i],
      label: `matched gateway ${i + 1}`,
      key: String(i),
      ...m,
    }));
  const errors = diagnostics.filter(isError).length;
  const entries = [
    ...delegatedHttp(gateway, hybrid, index, findCluster, diagnostics),
    ...delegatedTcp(gateway, hybrid, index, diagnostics),
  ];
  if (entries.length === 0 && diagnostics.filter(isError).length === errors)
    diagnostics.push(
      asWarning(
        fieldError(
          'resolve',
          gateway.origin,
          [...HYBRID, hybrid.delegatedHttpGateways ? 'delegatedHttpGateways' : 'delegatedTcpGateways'],
          'the delegation selects no MatchableHttpGateway or MatchableTcpGateway, so this Gateway makes no listener (as Gloo)',
          'define the resources it names or selects, or fix the selection',
        ),
      ),
    );
  return entries;
}

function delegatedHttp(
  gateway: Resource,
  hybrid: HybridGatewaySpec,
  index: ResourceIndex,
  findCluster: FindCluster,
  diagnostics: Diagnostic[],
): MatchedEntry[] {
  const d = hybrid.delegatedHttpGateways;
  if (!d) return [];
  const path = [...HYBRID, 'delegatedHttpGateways'];
  const hcmPath = [...path, 'httpConnectionManagerSettings'];
  // The settings handed down are checked once, here, where they are written.
  if (d.httpConnectionManagerSettings)
    withTracing(
      httpSettings(d.httpConnectionManagerSettings, gateway.origin, hcmPath, diagnostics),
      d.httpConnectionManagerSettings.tracing,
      gateway,
      [...hcmPath, 'tracing'],
      findCluster,
      diagnostics,
    );
  const parentTls = d.sslConfig !== undefined;
  const selected = select('MatchableHttpGateway', d, gateway, path, index, diagnostics).filter((child) => {
    const childTls = (child.spec as unknown as MatchableHttpGatewaySpec).matcher?.sslConfig !== undefined;
    if (childTls === parentTls) return true;
    // A reference that Gloo would silently pass over is an error; a selector skips it, as Gloo's does.
    if (d.ref)
      diagnostics.push(
        fieldError(
          'resolve',
          gateway.origin,
          [...path, 'ref'],
          parentTls
            ? `MatchableHttpGateway ${showRef(child)} has no matcher.sslConfig, and delegatedHttpGateways has an sslConfig: Gloo selects only MatchableHttpGateways with one`
            : `MatchableHttpGateway ${showRef(child)} has a matcher.sslConfig, and delegatedHttpGateways has none: Gloo selects only MatchableHttpGateways without one`,
          parentTls ? 'give the MatchableHttpGateway a matcher.sslConfig' : 'add an sslConfig to delegatedHttpGateways',
        ),
      );
    return false;
  });
  const prevent = d.preventChildOverrides ?? false;
  // The Gateway's references name resources of its own namespace, wherever the merge puts them.
  const parentHcm = anchored(d.httpConnectionManagerSettings, gateway.namespace);
  const parentSsl = anchored(d.sslConfig, gateway.namespace);
  return selected.map((child) => {
    const spec = child.spec as unknown as MatchableHttpGatewaySpec;
    const hcm = merged(parentHcm, spec.httpGateway.options?.httpConnectionManagerSettings, prevent);
    const ssl = oneCertificate(merged(parentSsl, spec.matcher?.sslConfig, prevent), prevent);
    const childHcmPath = ['spec', 'httpGateway', 'options', 'httpConnectionManagerSettings'];
    const handedDown = hcm.fromParent.map((p) => formatPath([...childHcmPath, ...p]));
    const certFromParent = ssl.fromParent.some((p) => p[0] === 'secretRef' || p[0] === 'sslFiles');
    return {
      owner: child,
      base: ['spec'],
      label: `MatchableHttpGateway ${showRef(child)}`,
      key: `${child.namespace}.${child.name}`,
      ...(ssl.value || spec.matcher
        ? { matcher: { ...spec.matcher, ...(ssl.value ? { sslConfig: ssl.value } : {}) } }
        : {}),
      httpGateway: hcm.value
        ? { ...spec.httpGateway, options: { ...spec.httpGateway.options, httpConnectionManagerSettings: hcm.value } }
        : spec.httpGateway,
      ...(certFromParent ? { tlsFrom: { resource: gateway, path: [...path, 'sslConfig'] } } : {}),
      inherited: (diag: Diagnostic) =>
        handedDown.some((f) => diag.field === f || diag.field?.startsWith(`${f}.`) || diag.field?.startsWith(`${f}[`)),
    } as MatchedEntry;
  });
}

function delegatedTcp(
  gateway: Resource,
  hybrid: HybridGatewaySpec,
  index: ResourceIndex,
  diagnostics: Diagnostic[],
): MatchedEntry[] {
  const d = hybrid.delegatedTcpGateways;
  if (!d) return [];
  return select('MatchableTcpGateway', d, gateway, [...HYBRID, 'delegatedTcpGateways'], index, diagnostics).map(
    (child) => {
      const spec = child.spec as unknown as MatchableTcpGatewaySpec;
      return {
        owner: child,
        base: ['spec'],
        label: `MatchableTcpGateway ${showRef(child)}`,
        key: `${child.namespace}.${child.name}`,
        ...(spec.matcher ? { matcher: spec.matcher } : {}),
        tcpGateway: spec.tcpGateway,
      };
    },
  );
}

/** A warning on each MatchableHttpGateway and MatchableTcpGateway no Gateway took (`taken`). */
export function unselectedDelegates(
  index: ResourceIndex,
  taken: ReadonlySet<Resource>,
  diagnostics: Diagnostic[],
): void {
  for (const kind of ['MatchableHttpGateway', 'MatchableTcpGateway'])
    for (const r of index.all(kind))
      if (!taken.has(r))
        diagnostics.push(
          asWarning(
            fieldError(
              'resolve',
              r.origin,
              ['metadata', 'name'],
              `no Gateway delegates to this ${kind}, so it is served nowhere`,
              `select it from a hybrid Gateway's ${kind === 'MatchableHttpGateway' ? 'delegatedHttpGateways' : 'delegatedTcpGateways'} (ref or selector)`,
            ),
          ),
        );
}

/** The resources of `kind` a delegation chooses, sorted by namespace and name; a dangling ref is an error. */
function select(
  kind: 'MatchableHttpGateway' | 'MatchableTcpGateway',
  d: { ref?: Ref; selector?: GatewaySelectorSpec },
  gateway: Resource,
  path: FieldPath,
  index: ResourceIndex,
  diagnostics: Diagnostic[],
): Resource[] {
  if (d.ref) {
    const ref = refOf(d.ref, gateway);
    const found = index.get(kind, ref);
    if (!found)
      diagnostics.push(
        notFound(
          fieldError(
            'resolve',
            gateway.origin,
            [...path, 'ref'],
            `${kind} ${showRef(ref)} not found`,
            `define the ${kind} (gateway.gateway.example/v1) or fix the reference`,
          ),
          `${kind} ${showRef(ref)}`,
        ),
      );
    return found ? [found] : [];
  }
  const s = d.selector ?? {};
  if (!checkExpressions(s.expressions ?? [], gateway.origin, [...path, 'selector', 'expressions'], diagnostics))
    return [];
  const namespaces = s.namespaces ?? [];
  const anyNamespace = namespaces.length === 0 || namespaces.includes('*');
  return index
    .all(kind)
    .filter(
      (r) => (anyNamespace || namespaces.includes(r.namespace)) && matchesLabels(labelsOf(r), s.labels, s.expressions),
    );
}

/**
 * A merged sslConfig with one certificate: where one side wrote secretRef and
 * the other sslFiles, the side that wins a clash keeps its own (the child's,
 * or the parent's under preventChildOverrides).
 */
function oneCertificate<T extends { secretRef?: unknown; sslFiles?: unknown }>(
  m: { value: T | undefined; fromParent: FieldPath[] },
  preventChildOverrides: boolean,
): { value: T | undefined; fromParent: FieldPath[] } {
  if (!m.value?.secretRef || !m.value.sslFiles) return m;
  const parents = m.fromParent.some((p) => p[0] === 'secretRef') ? 'secretRef' : 'sslFiles';
  const drop = preventChildOverrides ? (parents === 'secretRef' ? 'sslFiles' : 'secretRef') : parents;
  const { [drop]: _dropped, ...rest } = m.value;
  return { value: rest as T, fromParent: m.fromParent.filter((p) => p[0] !== drop) };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `value` with a namespace on each reference (a `…Ref` object) that has none. */
function anchored<T>(value: T, namespace: string): T {
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k.endsWith('Ref') && isObject(v) && typeof v.name === 'string' && v.namespace === undefined
        ? { ...v, namespace }
        : anchored(v, namespace),
    ]),
  ) as T;
}

/**
 * Gloo's merge of a parent's settings into a child's (mergo): objects field
 * by field, anything else (a value, a list) whole; where both set a value,
 * the child's wins unless `preventChildOverrides`. With the paths of the
 * values the parent gave.
 */
export function merged<T>(
  parent: T | undefined,
  child: T | undefined,
  preventChildOverrides: boolean,
): { value: T | undefined; fromParent: FieldPath[] } {
  const fromParent: FieldPath[] = [];
  const walk = (p: unknown, c: unknown, at: FieldPath): unknown => {
    if (p === undefined) return c;
    if (c === undefined) {
      fromParent.push(at);
      return p;
    }
    if (isObject(p) && isObject(c)) {
      const keys = [...new Set([...Object.keys(c), ...Object.keys(p)])];
      return Object.fromEntries(keys.map((k) => [k, walk(p[k], c[k], [...at, k])]));
    }
    if (!preventChildOverrides) return c;
    fromParent.push(at);
    return p;
  };
  const value = walk(parent, child, []) as T | undefined;
  return { value, fromParent };
}
