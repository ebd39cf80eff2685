/**
 * The status page's model, also served in /status: each proxy with its
 * Envoys, the sidecars, every input resource's verdict, the last compile's
 * diagnostics and the recent snapshot changes. Pure: from what the control
 * plane, the xDS server and the StatusBook hold at one moment.
 */
import { formatDiagnostic, isError, type Diagnostic } from '../../compiler/diagnostics.js';
import { DEFAULT_PROXY_NAME } from '../../compiler/resolve/gateways.js';
import type { Resource } from '../../compiler/validate/validate.js';
import { TYPE_URL } from '../../contract/names.js';
import type { SnapshotCache } from '../cache/cache.js';
import type { StreamStatus } from '../server/status.js';
import type { SnapshotChange, StatusBook } from './book.js';

/** The types only the sidecars ask for: a stream that subscribes to nothing else is a sidecar's. */
const SIDECAR_TYPES: ReadonlySet<string> = new Set([
  TYPE_URL.authConfig,
  TYPE_URL.graphqlApi,
  TYPE_URL.rateLimitDomain,
]);

const shortType = (url: string) => url.slice(url.lastIndexOf('.') + 1);

export interface TypeView {
  /** Short name (`Cluster`). */
  type: string;
  typeUrl: string;
  /** The version the client's snapshot has now. */
  current?: string;
  sent?: string;
  acked?: string;
  /** Whether the last ACKed version is the current one. */
  upToDate: boolean;
  /** When not up to date: since when the current version has been served (ISO 8601). */
  behindSince?: string;
  /** The last NACK, kept after a later ACK (then `upToDate` says it is over). */
  nacked?: { version: string; message: string; at: string };
}

export interface ClientView {
  stream: number;
  nodeId: string;
  /** The proxy of a fleet the node is (node metadata `role`). */
  proxy: string;
  cluster: string;
  userAgent: string;
  address: string;
  connectedAt: string;
  protocol: 'sotw' | 'delta';
  types: TypeView[];
}

export interface ProxyView {
  name: string;
  /** Version of the snapshot the proxy is served. */
  version?: string;
  envoys: ClientView[];
}

export interface SidecarView extends ClientView {
  /** Every type it subscribes to is ACKed at the current version. */
  ready: boolean;
}

export type ResourceState = 'accepted' | 'warning' | 'rejected';

export interface ResourceView {
  /** `Kind namespace/name`. */
  resource: string;
  file?: string;
  line?: number;
  state: ResourceState;
  /** The errors (rejected) or warnings, as the CLI prints them. */
  messages: string[];
}

export interface DiagnosticView {
  severity: 'error' | 'warning';
  resource?: string;
  text: string;
}

export interface StatusView {
  proxies: ProxyView[];
  sidecars: SidecarView[];
  resources: ResourceView[];
  diagnostics: DiagnosticView[];
  changes: SnapshotChange[];
}

export interface ViewSources {
  cache: SnapshotCache;
  streams: readonly StreamStatus[];
  inputs: readonly Resource[];
  diagnostics: readonly Diagnostic[];
  book: StatusBook;
}

function clientView(stream: StreamStatus, cache: SnapshotCache, book: StatusBook): ClientView {
  const proxy = stream.node?.proxy ?? DEFAULT_PROXY_NAME;
  const snapshot = cache.snapshotFor(proxy);
  const served = cache.proxies.has(proxy) ? proxy : '';
  const types = Object.entries(stream.types)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([typeUrl, t]): TypeView => {
      const current = snapshot?.type(typeUrl)?.version;
      const upToDate = current !== undefined && t.acked === current;
      const since = !upToDate && current !== undefined ? book.versionSince(served, typeUrl, current) : undefined;
      return {
        type: shortType(typeUrl),
        typeUrl,
        ...(current !== undefined ? { current } : {}),
        ...(t.sent !== undefined ? { sent: t.sent } : {}),
        ...(t.acked !== undefined ? { acked: t.acked } : {}),
        upToDate,
        ...(since ? { behindSince: since.toISOString() } : {}),
        ...(t.nacked
          ? { nacked: { version: t.nacked.version, message: t.nacked.errorDetail.message, at: t.nacked.at } }
          : {}),
      };
    });
  return {
    stream: stream.id,
    nodeId: stream.node?.id ?? '',
    proxy,
    cluster: stream.node?.cluster ?? '',
    userAgent: stream.node?.userAgent ?? '',
    address: stream.address,
    connectedAt: stream.connectedAt,
    protocol: stream.protocol,
    types,
  };
}

function isSidecar(stream: StreamStatus): boolean {
  const types = Object.keys(stream.types);
  return types.length > 0 && types.every((t) => SIDECAR_TYPES.has(t));
}

function verdict(name: string, own: readonly Diagnostic[], file?: string, line?: number): ResourceView {
  const errors = own.filter(isError);
  return {
    resource: name,
    ...(file ? { file } : {}),
    ...(line ? { line } : {}),
    state: errors.length > 0 ? 'rejected' : own.length > 0 ? 'warning' : 'accepted',
    messages: (errors.length > 0 ? errors : own).map(formatDiagnostic),
  };
}

/**
 * The verdict on each input resource, from the diagnostics that name it (as
 * serve --kube writes it into status); a resource refused before it was
 * read as one (its name does not validate) is known from its diagnostics.
 */
function resourceViews(inputs: readonly Resource[], diagnostics: readonly Diagnostic[]): ResourceView[] {
  const byResource = new Map<string, Diagnostic[]>();
  for (const d of diagnostics) if (d.resource) byResource.set(d.resource, [...(byResource.get(d.resource) ?? []), d]);
  const seen = new Set<string>();
  const views: ResourceView[] = [];
  for (const r of inputs) {
    const name = r.origin.resource;
    if (seen.has(`${name}\0${r.origin.file}`)) continue;
    seen.add(`${name}\0${r.origin.file}`);
    views.push(verdict(name, byResource.get(name) ?? [], r.origin.file, r.origin.lineOf([])));
  }
  const named = new Set(inputs.map((r) => r.origin.resource));
  for (const [name, own] of byResource)
    if (!named.has(name)) views.push(verdict(name, own, own[0]!.file, own[0]!.line));
  const order: Record<ResourceState, number> = { rejected: 0, warning: 1, accepted: 2 };
  return views.sort((a, b) => order[a.state] - order[b.state] || a.resource.localeCompare(b.resource));
}

export function statusView({ cache, streams, inputs, diagnostics, book }: ViewSources): StatusView {
  const proxyNames = cache.proxies.size > 0 ? [...cache.proxies.keys()].sort() : [DEFAULT_PROXY_NAME];
  const proxies = new Map<string, ProxyView>(
    proxyNames.map((name) => [name, { name, version: cache.snapshotFor(name)?.version, envoys: [] }]),
  );
  const sidecars: SidecarView[] = [];
  for (const stream of streams) {
    const view = clientView(stream, cache, book);
    if (isSidecar(stream)) sidecars.push({ ...view, ready: view.types.every((t) => t.upToDate) });
    else {
      // An Envoy naming a proxy no Gateway lists is shown under that name, with no snapshot of its own.
      let proxy = proxies.get(view.proxy);
      if (!proxy) proxies.set(view.proxy, (proxy = { name: view.proxy, envoys: [] }));
      proxy.envoys.push(view);
    }
  }
  return {
    proxies: [...proxies.values()],
    sidecars,
    resources: resourceViews(inputs, diagnostics),
    diagnostics: diagnostics.map((d) => ({
      severity: isError(d) ? 'error' : 'warning',
      ...(d.resource ? { resource: d.resource } : {}),
      text: formatDiagnostic(d),
    })),
    changes: book.changes,
  };
}
