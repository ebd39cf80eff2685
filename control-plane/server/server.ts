/**
 * Aggregated Discovery Service over @grpc/grpc-js: state of the world
 * (StreamAggregatedResources) and incremental (DeltaAggregatedResources),
 * serving whatever the SnapshotCache holds; and the same streams as the
 * discovery services of one type (RDS, CDS, EDS, LDS, SDS, ECDS), for an
 * Envoy that gets Sluice's part from its own config sources (mesh mode).
 *
 * Protocol rules (each has a conformance test in test/xds):
 * - every response carries a fresh nonce; a request whose response_nonce is
 *   not the latest one sent for its type is stale and ignored (SotW);
 * - SotW answers a type only after a request for it (one response in flight
 *   per type), and holds a request whose version_info is the current version
 *   (with the same names) until the snapshot changes;
 * - on a change, types go out in ADS order: clusters, endpoints, listeners,
 *   routes, then the sidecar types; and make before break (ordering.ts): a
 *   listener or route naming a cluster waits until the client has ACKed it,
 *   a cluster stays until no listener or route the client holds names it;
 * - one response in flight per type, for delta too: changes while it is
 *   unanswered go out merged after the ACK/NACK; past 1 MiB unflushed to a
 *   stream (a client that stopped reading) nothing more is written to it;
 * - LDS, CDS and the sidecar types accept wildcard subscriptions (empty list
 *   or "*"); RDS and EDS return only the names asked for;
 * - delta sends only resources whose content hash differs from what the
 *   client has (initial_resource_versions on reconnect), and lists vanished
 *   ones in removed_resources;
 * - VHDS (serve --vhds, delta only): a route configuration's name subscribes
 *   to all its virtual hosts, `<route configuration>/<host>` asks for the one
 *   that host selects (answered with the request as alias, or empty);
 * - a NACK is recorded in the cache and the rejected version is not sent to
 *   that node again, on this stream or a later one;
 * - the node id comes from the first request of a stream only.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import type { Logger } from 'pino';
import type { ErrorDetail, NackRecord, SnapshotCache } from '../cache/cache.js';
import { LISTENER_PORT_KEY, PROXY_ROLE_KEY } from '../bootstrap.js';
import { DEFAULT_PROXY_NAME } from '../../compiler/resolve/gateways.js';
import { ADS_SERVICE, discoveryTypes } from '../../contract/discovery.js';
import { TYPE_URL } from '../../contract/names.js';
import { findVirtualHost } from '../../compiler/explain/match.js';
import type { Json } from '../../compiler/translate/output.js';
import { KnownVersions } from './known.js';
import { HeldRefs, REFERRED_TYPES, REFERRING_TYPES, waitsForClusters, type Held } from './ordering.js';
import { keepValueIn, TYPE_ORDER, WILDCARD_TYPES, sotwBody as encodeSotwBody, withValueLast, type Resource, type Snapshot, type TypeSnapshot } from '../cache/snapshot.js';

/** The discovery services of one type each: service name and method suffix (Stream<suffix>, Delta<suffix>). */
const SINGLE_TYPE_SERVICES: ReadonlyArray<readonly [string, string]> = [
  ['envoy.service.listener.v3.ListenerDiscoveryService', 'Listeners'],
  ['envoy.service.route.v3.RouteDiscoveryService', 'Routes'],
  ['envoy.service.cluster.v3.ClusterDiscoveryService', 'Clusters'],
  ['envoy.service.endpoint.v3.EndpointDiscoveryService', 'Endpoints'],
  ['envoy.service.secret.v3.SecretDiscoveryService', 'Secrets'],
  ['envoy.service.extension.v3.ExtensionConfigDiscoveryService', 'ExtensionConfigs'],
];

export interface NodeInfo {
  id: string;
  cluster: string;
  userAgent: string;
  /** From node metadata `sluice.listener_port` (set by `sluice bootstrap --listener-port`). */
  listenerPort?: number;
  /** The proxy of a fleet the node is (Gateway proxyNames), from node metadata `role`. */
  proxy: string;
}

/**
 * A node's proxy name: node metadata `role`, as Gloo's bootstrap sets it
 * (`NAMESPACE~NAME`, or plain `NAME`); without one, Gloo's default proxy.
 */
export function proxyOf(role: string | null | undefined): string {
  const name = role?.slice(role.lastIndexOf('~') + 1);
  return name ? name : DEFAULT_PROXY_NAME;
}

export interface TypeStatus {
  /** Version last sent. */
  sent?: string;
  /** Version (SotW) or system version (delta) last ACKed. */
  acked?: string;
  nacked?: { version: string; errorDetail: ErrorDetail; at: string };
}

export interface StreamStatus {
  id: number;
  protocol: 'sotw' | 'delta';
  node?: NodeInfo;
  types: Record<string, TypeStatus>;
  /** Bytes of responses written to the stream and not yet taken by its HTTP/2 stream (a client that stopped reading). */
  unflushedBytes: number;
}

/** Events: connect/disconnect/node (StreamStatus; node: once the first request named it), push ({node, typeUrl, version}), ack ({node, typeUrl, version}), nack (NackRecord), stale ({node, typeUrl, nonce}), request ({node, typeUrl}: handled, with any response it caused). */
export class XdsServer extends EventEmitter {
  private readonly grpcServer = new grpc.Server({
    'grpc.max_receive_message_length': 16 * 1024 * 1024,
    // HTTP/2 pings find clients that vanished without closing (node lost), so their streams and metrics go away.
    'grpc.keepalive_time_ms': 30_000,
    'grpc.keepalive_timeout_ms': 10_000,
  });
  private readonly streams = new Set<AdsStream>();
  private nextStreamId = 1;
  /** Streams with a snapshot change to push, drained one stream per turn of the event loop. */
  private readonly pendingPushes = new Set<AdsStream>();
  private draining = false;
  /** Bytes written to all streams and not yet taken by HTTP/2: scheduled pushes wait past PUSH_BUDGET. */
  private unflushedBytes = 0;

  constructor(
    readonly cache: SnapshotCache,
    private readonly logger?: Logger,
  ) {
    super();
    const types = discoveryTypes();
    const decoder = (type: protobuf.Type) => (buf: Buffer) =>
      type.toObject(type.decode(buf), { defaults: true, arrays: true, longs: String, enums: String });
    const sotw = (path: string) => ({
      path,
      requestStream: true,
      responseStream: true,
      requestSerialize: (m: object) => Buffer.from(types.DiscoveryRequest.encode(types.DiscoveryRequest.fromObject(m)).finish()),
      requestDeserialize: decoder(types.DiscoveryRequest),
      responseSerialize: (r: EncodedResponse) => Buffer.concat([r.body, protobuf.Writer.create().uint32(NONCE_TAG).string(r.nonce).finish()]),
      responseDeserialize: decoder(types.DiscoveryResponse),
    });
    const delta = (path: string) => ({
      path,
      requestStream: true,
      responseStream: true,
      requestSerialize: (m: object) => Buffer.from(types.DeltaDiscoveryRequest.encode(types.DeltaDiscoveryRequest.fromObject(m)).finish()),
      requestDeserialize: decoder(types.DeltaDiscoveryRequest),
      responseSerialize: (r: EncodedDeltaResponse) => Buffer.concat(r.parts),
      responseDeserialize: decoder(types.DeltaDiscoveryResponse),
    });
    const sotwHandler = (call: grpc.ServerDuplexStream<Request, EncodedResponse>) => this.track(new SotwStream(this.nextStreamId++, call, this));
    const deltaHandler = (call: grpc.ServerDuplexStream<DeltaRequest, EncodedDeltaResponse>) => this.track(new DeltaStream(this.nextStreamId++, call, this));
    this.grpcServer.addService(
      { StreamAggregatedResources: sotw(`${ADS_SERVICE}/StreamAggregatedResources`), DeltaAggregatedResources: delta(`${ADS_SERVICE}/DeltaAggregatedResources`) },
      { StreamAggregatedResources: sotwHandler, DeltaAggregatedResources: deltaHandler },
    );
    // One type per stream, as an Envoy configured without ADS asks (a config_source naming this server's cluster): the same streams, whose requests name their type.
    for (const [service, suffix] of SINGLE_TYPE_SERVICES) {
      this.grpcServer.addService(
        { [`Stream${suffix}`]: sotw(`/${service}/Stream${suffix}`), [`Delta${suffix}`]: delta(`/${service}/Delta${suffix}`) },
        { [`Stream${suffix}`]: sotwHandler, [`Delta${suffix}`]: deltaHandler },
      );
    }
  }

  /** Binds `host:port` (port 0: ephemeral) and returns the bound port. */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.grpcServer.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, bound) =>
        err ? reject(err) : resolve(bound),
      );
    });
  }

  /** Ends every stream (clients see OK and reconnect elsewhere), then stops the server. */
  async close(): Promise<void> {
    for (const stream of [...this.streams]) stream.end();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.grpcServer.forceShutdown();
        resolve();
      }, 2000);
      this.grpcServer.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  status(): StreamStatus[] {
    return [...this.streams].map((s) => s.status());
  }

  get connectedClients(): number {
    return this.streams.size;
  }

  /**
   * @internal Pushes a snapshot change to `stream` later, one stream per
   * turn of the event loop: setting a snapshot returns at once, and a
   * snapshot's pushes to many clients (each a copy of a response that may
   * be megabytes) leave room for reading ACKs, the file watcher and the
   * next compile in between. Repeated changes before its turn push once.
   */
  schedulePush(stream: AdsStream): void {
    this.pendingPushes.add(stream);
    if (this.draining) return;
    this.draining = true;
    setImmediate(this.drainPushes);
  }

  /** @internal Whether responses written and not yet taken by HTTP/2 have reached the push budget. */
  overBudget(): boolean {
    return this.unflushedBytes >= PUSH_BUDGET;
  }

  /** @internal Bytes handed to a stream (positive) or taken by HTTP/2 (negative). */
  unflushed(bytes: number): void {
    this.unflushedBytes += bytes;
    if (bytes < 0 && !this.draining && this.pendingPushes.size && this.unflushedBytes < PUSH_BUDGET) {
      this.draining = true;
      setImmediate(this.drainPushes);
    }
  }

  private readonly drainPushes = (): void => {
    const next = this.pendingPushes.values().next();
    // Past the budget, the next push waits for a write to complete (unflushed): memory stays bounded whatever the number of clients.
    if (next.done || this.unflushedBytes >= PUSH_BUDGET) {
      this.draining = false;
      return;
    }
    this.pendingPushes.delete(next.value);
    next.value.pushAll();
    setImmediate(this.drainPushes);
  };

  /** @internal */
  log(): Logger | undefined {
    return this.logger;
  }

  private track(stream: AdsStream): void {
    this.streams.add(stream);
    this.emit('connect', stream.status());
    stream.onClose(() => {
      this.streams.delete(stream);
      this.emit('disconnect', stream.status());
    });
  }
}

/** Unflushed bytes past which a stream's next response waits (one large response always goes). */
const WRITE_BUDGET = 1024 * 1024;
/** Unflushed bytes of all streams past which scheduled pushes wait (one large response always goes): each client gets its own copy of a response. */
const PUSH_BUDGET = 64 * 1024 * 1024;
const PUSH_HOLD_MS = 1000;

/** Field 5 (nonce), wire type 2. */
const NONCE_TAG = (5 << 3) | 2;
/** Fields of DeltaDiscoveryResponse, wire type 2. */
const DELTA_TAG = { systemVersionInfo: (1 << 3) | 2, resources: (2 << 3) | 2, typeUrl: (4 << 3) | 2, removed: (6 << 3) | 2, nonce: NONCE_TAG };
/** envoy.service.discovery.v3.Resource fields, wire type 2: version, resource (the Any), name. */
const RESOURCE_TAG = { version: (1 << 3) | 2, resource: (2 << 3) | 2, name: (3 << 3) | 2 };

/** A delta response as encoded pieces; the resource entries are shared across clients. */
interface EncodedDeltaResponse {
  parts: Uint8Array[];
}

/** A SotW response: the encoded DiscoveryResponse without its nonce (shared across clients), and the nonce. */
interface EncodedResponse {
  body: Buffer;
  nonce: string;
}

interface NodeMessage {
  id?: string;
  cluster?: string;
  user_agent_name?: string;
  user_agent_version?: string;
  metadata?: { fields?: Record<string, { numberValue?: number; stringValue?: string }> } | null;
}

interface Request {
  version_info: string;
  node?: NodeMessage | null;
  resource_names: string[];
  type_url: string;
  response_nonce: string;
  error_detail?: ErrorDetail | null;
}

interface DeltaRequest {
  node?: NodeMessage | null;
  type_url: string;
  resource_names_subscribe: string[];
  resource_names_unsubscribe: string[];
  initial_resource_versions: Record<string, string>;
  response_nonce: string;
  error_detail?: ErrorDetail | null;
}

abstract class AdsStream<TypeState = unknown> {
  protected node: NodeInfo | undefined;
  /** Protocol state of each type the client subscribed to. */
  protected readonly types = new Map<string, TypeState>();
  protected readonly typeStatus = new Map<string, TypeStatus>();
  private nonceCounter = 0;
  private closed = false;
  private readonly closeHandlers: Array<() => void> = [];
  private readonly unwatch: () => void;
  /** Bytes handed to the call whose write has not completed. */
  private unflushed = 0;
  /** A push waited for unflushed bytes; pushAll again once they drain. */
  private deferred = false;
  private readonly refs = new HeldRefs();

  constructor(
    readonly id: number,
    protected readonly call: grpc.ServerDuplexStream<any, any>,
    protected readonly server: XdsServer,
  ) {
    this.unwatch = server.cache.watch((proxy) => {
      if (this.node && (proxy === undefined ? !server.cache.proxies.has(this.node.proxy) : proxy === this.node.proxy)) server.schedulePush(this);
    });
    call.on('data', (msg) => {
      try {
        this.onRequest(msg);
      } catch (err) {
        server.log()?.error({ err, stream: id }, 'xds request failed');
        call.destroy(err as Error);
      }
    });
    call.on('end', () => this.end());
    call.on('error', () => this.close());
    call.on('close', () => this.close());
    call.on('cancelled', () => this.close());
  }

  abstract readonly protocol: 'sotw' | 'delta';
  protected abstract onRequest(msg: unknown): void;
  /** Sends what `typeUrl` is due from `snapshot`, if anything. */
  protected abstract push(typeUrl: string, snapshot: Snapshot): void;
  /** What the client holds of a listener or route type (make before break). */
  protected abstract held(typeUrl: string): Held | undefined;
  /**
   * Whether the client has ACKed the cluster `name` in `version` (CDS) or
   * some endpoints for it (EDS), and no response in flight changes that.
   * True when it does not subscribe to the type, or to that cluster by name;
   * not for EDS, since Envoy asks for an EDS cluster's endpoints once it has
   * the cluster.
   */
  protected abstract holds(typeUrl: string, name: string, version?: string): boolean;
  /** Whether the client surely holds every resource of `typeUrl` in `snapshot` (as `holds` would answer for each); false when unsure. */
  protected holdsAll(_typeUrl: string, _snapshot: Snapshot): boolean {
    return false;
  }

  end(): void {
    if (!this.closed) this.call.end();
    this.close();
  }

  onClose(handler: () => void): void {
    this.closeHandlers.push(handler);
  }

  status(): StreamStatus {
    return { id: this.id, protocol: this.protocol, node: this.node, types: Object.fromEntries(this.typeStatus), unflushedBytes: this.unflushed };
  }

  protected close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unwatch();
    for (const handler of this.closeHandlers) handler();
  }

  protected get isClosed(): boolean {
    return this.closed;
  }

  /** The node id is taken from the first request of the stream only. */
  protected adoptNode(node: NodeMessage | null | undefined): void {
    if (this.node) return;
    this.node = {
      id: node?.id ?? '',
      cluster: node?.cluster ?? '',
      userAgent: [node?.user_agent_name, node?.user_agent_version].filter(Boolean).join('/'),
      listenerPort: node?.metadata?.fields?.[LISTENER_PORT_KEY]?.numberValue,
      proxy: proxyOf(node?.metadata?.fields?.[PROXY_ROLE_KEY]?.stringValue),
    };
    this.server.emit('node', this.status());
  }

  protected nextNonce(): string {
    return String(++this.nonceCounter);
  }

  protected typeState(typeUrl: string): TypeStatus {
    let st = this.typeStatus.get(typeUrl);
    if (!st) this.typeStatus.set(typeUrl, (st = {}));
    return st;
  }

  protected nodeId(): string {
    return this.node?.id ?? '';
  }

  /** The snapshot of the node's proxy. */
  protected snapshot(): Snapshot | undefined {
    return this.server.cache.snapshotFor(this.node?.proxy ?? DEFAULT_PROXY_NAME);
  }

  /** After a snapshot change: each subscribed type, in ADS order. */
  pushAll(): void {
    if (this.closed) return;
    const snapshot = this.snapshot();
    if (!snapshot) return;
    const subscribed = new Set(this.types.keys());
    for (const typeUrl of TYPE_ORDER) if (subscribed.has(typeUrl)) this.push(typeUrl, snapshot);
    for (const typeUrl of [...subscribed].sort()) if (!TYPE_ORDER.includes(typeUrl)) this.push(typeUrl, snapshot);
  }

  /**
   * Whether a response may be written now. Past WRITE_BUDGET unflushed
   * bytes (a client that stopped reading, or ACKs what it never read) it
   * waits; what changes meanwhile goes out merged once the bytes drain.
   */
  protected writeBlocked(): boolean {
    if (this.unflushed >= WRITE_BUDGET) {
      this.deferred = true;
      return true;
    }
    // Past the server's budget (hundreds of clients subscribing at once, each to megabytes), the response waits its turn with the scheduled pushes: memory stays bounded.
    if (this.server.overBudget()) {
      this.server.schedulePush(this);
      return true;
    }
    return false;
  }

  protected send(message: EncodedResponse | EncodedDeltaResponse, bytes: number): void {
    this.unflushed += bytes;
    // Counted against the server's push budget until written, or for at most PUSH_HOLD_MS: a client that stopped reading (or a stream that died) holds up the others' pushes only that long.
    this.server.unflushed(bytes);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      clearTimeout(hold);
      this.server.unflushed(-bytes);
    };
    const hold = setTimeout(release, PUSH_HOLD_MS).unref();
    // grpc-js calls back once the HTTP/2 stream has taken the message, which flow control delays for a client that does not read.
    this.call.write(message, () => {
      release();
      this.unflushed -= bytes;
      if (this.deferred && this.unflushed < WRITE_BUDGET) {
        this.deferred = false;
        this.pushAll();
      }
    });
  }

  /** Clusters named by the listeners and routes the client holds or is being sent: not to be removed yet. */
  protected heldRefs(): ReadonlySet<string> {
    return this.refs.of((typeUrl) => this.held(typeUrl));
  }

  /** Whether `resource` names a cluster (or its endpoints) the client has not ACKed yet: it waits. */
  protected waits(typeUrl: string, resource: Resource, snapshot: Snapshot): boolean {
    // The usual case, settled clusters and endpoints: no need to look up each of the tens of thousands of clusters a route configuration names.
    if (this.holdsAll(TYPE_URL.cluster, snapshot) && this.holdsAll(TYPE_URL.endpoint, snapshot)) return false;
    return waitsForClusters(typeUrl, resource, snapshot, (type, name, version) => this.holds(type, name, version));
  }

  protected acked(typeUrl: string, version: string): void {
    this.typeState(typeUrl).acked = version;
    this.server.cache.recordAck(this.nodeId(), typeUrl, version);
    this.server.emit('ack', { node: this.nodeId(), typeUrl, version, stream: this.id });
  }

  protected nacked(typeUrl: string, version: string, resources: ReadonlyMap<string, string>, errorDetail: ErrorDetail): void {
    const record: NackRecord = { node: this.nodeId(), typeUrl, version, resources, errorDetail, at: new Date() };
    this.server.cache.recordNack(record);
    this.typeState(typeUrl).nacked = { version, errorDetail, at: record.at.toISOString() };
    // The full detail is on /status; the log gets its head (Envoy's can run to many kilobytes).
    const error = errorDetail.message.length > 500 ? `${errorDetail.message.slice(0, 500)}… (${errorDetail.message.length} characters)` : errorDetail.message;
    this.server.log()?.warn({ node: record.node, typeUrl, version, error }, 'xds NACK');
    this.server.emit('nack', record);
  }

  /** Emitted after a request has been handled, including any response it caused. */
  protected processed(typeUrl: string): void {
    this.server.emit('request', { node: this.nodeId(), typeUrl, stream: this.id });
  }

  protected pushed(typeUrl: string, version: string): void {
    this.typeState(typeUrl).sent = version;
    this.server.emit('push', { node: this.nodeId(), typeUrl, version, stream: this.id });
  }
}

interface SotwTypeState {
  names: string[];
  wildcard: boolean;
  /** Nonce of the last response; requests carrying another one are stale. */
  nonce?: string;
  sentVersion?: string;
  sentNamesKey?: string;
  /** The resources of the last response, and of the last one ACKed (make before break reads both). */
  sent?: ReadonlyMap<string, Resource>;
  acked?: ReadonlyMap<string, Resource>;
  /** version_info of the latest request: what the client has applied. */
  clientVersion: string;
  /** A request is waiting for a response: the one response in flight per type was answered. */
  watchOpen: boolean;
}

class SotwStream extends AdsStream<SotwTypeState> {
  readonly protocol = 'sotw' as const;

  protected onRequest(req: Request): void {
    this.adoptNode(req.node);
    const typeUrl = req.type_url;
    if (!typeUrl) return;
    let st = this.types.get(typeUrl);
    const first = !st;
    if (st && req.response_nonce !== (st.nonce ?? '')) {
      // An answer to a response that has since been superseded (or never sent); an empty nonce before any response is a new subscription.
      this.server.emit('stale', { node: this.nodeId(), typeUrl, nonce: req.response_nonce, stream: this.id });
      this.processed(typeUrl);
      return;
    }
    if (st && req.response_nonce) {
      if (req.error_detail) this.nacked(typeUrl, st.sentVersion ?? '', versionsOf(st.sent), req.error_detail);
      else {
        if (typeUrl === TYPE_URL.cluster) this.clustersReplaced(st.acked, st.sent);
        st.acked = st.sent;
        this.acked(typeUrl, req.version_info);
      }
    }
    const names = req.resource_names.filter((n) => n !== '*');
    const wildcard = req.resource_names.includes('*') || (req.resource_names.length === 0 && WILDCARD_TYPES.has(typeUrl));
    st ??= { names, wildcard, clientVersion: '', watchOpen: false };
    st.names = names;
    st.wildcard = wildcard;
    st.clientVersion = req.version_info;
    // Names no longer asked for are dropped by the client (Envoy forgets the endpoints of a cluster it no longer has).
    if (!wildcard && st.acked && [...st.acked.keys()].some((n) => !names.includes(n)))
      st.acked = new Map([...st.acked].filter(([n]) => names.includes(n)));
    const snapshot = this.snapshot();
    if (first && req.version_info) {
      // A reconnecting client that already has a version has it for the names it asks for, and holds its resources if it is the current one.
      st.sentNamesKey = namesKey(st);
      const type = snapshot?.type(typeUrl);
      if (type?.version === req.version_info) st.sent = st.acked = selected(st, type);
    }
    if (first && typeUrl === TYPE_URL.route && (snapshot?.type(TYPE_URL.virtualHost)?.resources.size ?? 0) > 0)
      this.server.log()?.warn({ node: this.nodeId() }, 'serve --vhds: this Envoy asks for routes over state-of-the-world xDS, and Envoy takes VHDS over delta xDS only; it will reject the route configurations (bootstrap it with sluice bootstrap --delta)');
    st.watchOpen = true;
    this.types.set(typeUrl, st);
    // An ACK may let another type go: routes waiting for their clusters, clusters kept for the routes the client held.
    this.pushAll();
    this.processed(typeUrl);
  }

  protected held(typeUrl: string): Held | undefined {
    return this.types.get(typeUrl);
  }

  protected holds(typeUrl: string, name: string, version?: string): boolean {
    const st = this.types.get(typeUrl);
    if (!st || (typeUrl === TYPE_URL.cluster && !(st.wildcard || st.names.includes(name)))) return true;
    // ACKed, and not taken away (nor, for a cluster, changed) by the response in flight; new endpoints for a cluster keep it usable.
    const acked = st.acked?.get(name);
    if (!acked || (version !== undefined && acked.version !== version)) return false;
    if (st.watchOpen) return true;
    return typeUrl === TYPE_URL.cluster ? st.sent?.get(name)?.version === acked.version : (st.sent?.has(name) ?? false);
  }

  /** Per type: the last answer of holdsAll, for the ACKed set and the snapshot's resources it was computed from. */
  private readonly heldAll = new Map<string, { acked: ReadonlyMap<string, Resource>; resources: ReadonlyMap<string, Resource>; all: boolean }>();

  protected holdsAll(typeUrl: string, snapshot: Snapshot): boolean {
    const st = this.types.get(typeUrl);
    const resources = snapshot.type(typeUrl)?.resources;
    if (!st || !resources) return true;
    // A response in flight may change what the client holds: unsure.
    if (!st.watchOpen || !st.acked) return false;
    const acked = st.acked;
    if (acked === resources) return true;
    const memo = this.heldAll.get(typeUrl);
    if (memo?.acked === acked && memo.resources === resources) return memo.all;
    let all = true;
    for (const [name, r] of resources) {
      const a = acked.get(name);
      if (!a || (typeUrl === TYPE_URL.cluster && a.version !== r.version)) {
        all = false;
        break;
      }
    }
    this.heldAll.set(typeUrl, { acked, resources, all });
    return all;
  }

  protected push(typeUrl: string, snapshot: Snapshot): void {
    const st = this.types.get(typeUrl);
    const type = snapshot.type(typeUrl);
    if (!st || !st.watchOpen || !type || this.isClosed) return;
    const key = namesKey(st);
    const kept = REFERRED_TYPES.has(typeUrl) ? this.kept(st, type) : [];
    // Clusters kept for the routes the client holds make a set of their own, with a version of its own.
    const version = kept.length ? keptVersion(type.version, kept) : type.version;
    if (version === st.clientVersion && key === st.sentNamesKey) return;
    if (this.server.cache.lastNack(this.nodeId(), typeUrl)?.version === version) return;
    let resources = selected(st, type);
    if (kept.length) resources = new Map([...resources, ...kept.map((r) => [r.name, r] as const)]);
    if (REFERRING_TYPES.has(typeUrl) && [...resources.values()].some((r) => this.waits(typeUrl, r, snapshot))) return;
    if (this.writeBlocked()) return;
    const body = kept.length ? encodeSotwBody(version, typeUrl, [...resources.values()]) : sotwBody(snapshot, typeUrl, type, key, () => [...resources.values()]);
    const nonce = this.nextNonce();
    this.send({ body, nonce } satisfies EncodedResponse, body.length);
    st.nonce = nonce;
    st.sentVersion = version;
    st.sentNamesKey = key;
    st.sent = resources;
    st.watchOpen = false;
    this.pushed(typeUrl, version);
  }

  /**
   * A cluster the client replaced or dropped with the CDS it ACKed no longer
   * has its endpoints: Envoy asks again for them, and the request may have
   * crossed a response (stale, ignored). Routes naming it wait for its EDS
   * again, which is resent to be sure.
   */
  private clustersReplaced(before: ReadonlyMap<string, Resource> | undefined, after: ReadonlyMap<string, Resource> | undefined): void {
    const eds = this.types.get(TYPE_URL.endpoint);
    if (!eds?.acked || !before) return;
    const kept = [...eds.acked].filter(([name]) => after?.get(name)?.version === before.get(name)?.version);
    if (kept.length === eds.acked.size) return;
    eds.acked = new Map(kept);
    eds.clientVersion = '';
  }

  /** Clusters (or their endpoints) the client holds, gone from `type`, that held routes still name. */
  private kept(st: SotwTypeState, type: TypeSnapshot): Resource[] {
    // Nothing the client holds is gone: skip collecting the held listeners' and routes' cluster names (tens of thousands at scale, on every request).
    if (!goneFrom(type, st.sent) && !goneFrom(type, st.acked)) return [];
    const refs = this.heldRefs();
    if (refs.size === 0 || (!st.sent && !st.acked)) return [];
    const kept: Resource[] = [];
    for (const name of refs) {
      if (type.resources.has(name) || !(st.wildcard || st.names.includes(name))) continue;
      const old = st.sent?.get(name) ?? st.acked?.get(name);
      if (old) kept.push(old);
    }
    return kept.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}

/** The resources a SotW subscription selects from `type` (wildcard: the type's own map, not a copy). */
function selected(st: SotwTypeState, type: TypeSnapshot): ReadonlyMap<string, Resource> {
  if (st.wildcard) return type.resources;
  return new Map([...new Set(st.names)].flatMap((n) => (type.resources.has(n) ? [[n, type.resources.get(n)!] as const] : [])));
}

/** Whether `held` has a resource that `type` no longer has. */
function goneFrom(type: TypeSnapshot, held: ReadonlyMap<string, Resource> | undefined): boolean {
  if (!held || held === type.resources) return false;
  for (const name of held.keys()) if (!type.resources.has(name)) return true;
  return false;
}

function keptVersion(typeVersion: string, kept: Resource[]): string {
  return `${typeVersion}+${createHash('sha256').update(kept.map((r) => `${r.name}@${r.version}`).join('\n')).digest('hex').slice(0, 16)}`;
}

/** name -> version of a response's resources; computed only for a NACK, to keep streams small. */
function versionsOf(resources: ReadonlyMap<string, Resource> | undefined): Map<string, string> {
  return new Map([...(resources?.values() ?? [])].map((r) => [r.name, r.version]));
}

function namesKey(st: SotwTypeState): string {
  return st.wildcard ? '*' : [...new Set(st.names)].sort().join('\n');
}

/** The DiscoveryResponse minus its nonce, encoded once per snapshot, type and name set. */
function sotwBody(snapshot: Snapshot, typeUrl: string, type: TypeSnapshot, key: string, select: () => Resource[]): Buffer {
  const cacheKey = `${typeUrl}\n${key}`;
  let body = snapshot.bodies.get(cacheKey);
  if (!body) {
    // From each resource's kept Any entry (snapshot.ts): an unchanged resource is not encoded again.
    body = encodeSotwBody(type.version, typeUrl, select());
    snapshot.bodies.set(cacheKey, body);
  }
  return body;
}

interface DeltaTypeState {
  subscribed: Set<string>;
  wildcard: boolean;
  /** name -> version the client has (or has been sent). */
  known: KnownVersions;
  /**
   * The response awaiting ACK/NACK: at most one per type. Changes meanwhile
   * wait and go out merged, in the next response after the answer, so a
   * client that stops answering costs one response per type, whatever the
   * number of edits.
   */
  inFlight?: { nonce: string; version: string; resources: Map<string, string>; added: Set<string>; removed: Set<string> };
  /**
   * A fresh wildcard subscription is answered even when there is nothing in
   * it, so the client knows the set is empty (Envoy would otherwise wait out
   * its initial fetch timeout).
   */
  answerEmpty: boolean;
  /** Type version the client was last brought fully up to date with, for the current subscriptions. */
  syncedVersion?: string;
  /** Listeners, route configurations and virtual hosts only: what the client holds (ACKed) and was sent, for make before break. */
  held?: { sent: ReadonlyMap<string, Resource | undefined>; acked: ReadonlyMap<string, Resource | undefined> };
  /** VHDS only: on-demand requests (`<route configuration>/<host>`) not answered yet; `subscribed` holds the route configurations, each a namespace of virtual hosts. */
  aliases?: Set<string>;
}

class DeltaStream extends AdsStream<DeltaTypeState> {
  readonly protocol = 'delta' as const;

  protected onRequest(req: DeltaRequest): void {
    this.adoptNode(req.node);
    const typeUrl = req.type_url;
    if (!typeUrl) return;
    let st = this.types.get(typeUrl);
    if (!st) {
      const known = new KnownVersions(Object.entries(req.initial_resource_versions ?? {}));
      const wildcard = (req.resource_names_subscribe.length === 0 && WILDCARD_TYPES.has(typeUrl)) || req.resource_names_subscribe.includes('*');
      st = { subscribed: new Set(), wildcard, known, answerEmpty: wildcard && known.size === 0 };
      if (REFERRING_TYPES.has(typeUrl)) {
        // A reconnecting client's resources, where the current snapshot has that version (else their clusters are unknown).
        const current = this.snapshot()?.type(typeUrl)?.resources;
        // A new client's is one map shared by all: what it is sent first (10,000 virtual hosts, say) is then one diff for all of them (hostDiff), computed once and kept once.
        const held = known.size === 0 ? NOTHING_HELD : new Map([...known.keys()].map((name) => [name, current?.get(name)?.version === known.get(name) ? current!.get(name) : undefined]));
        st.held = { sent: held, acked: held };
      }
      this.types.set(typeUrl, st);
    }
    if (req.response_nonce) {
      const answered = st.inFlight?.nonce === req.response_nonce ? st.inFlight : undefined;
      if (!answered) this.server.emit('stale', { node: this.nodeId(), typeUrl, nonce: req.response_nonce, stream: this.id });
      else {
        st.inFlight = undefined;
        if (req.error_detail) {
          // The client keeps what it had: resources new in the rejected response are not held.
          for (const name of answered.added) st.known.delete(name);
          if (st.held) st.held = { sent: st.held.acked, acked: st.held.acked };
          this.nacked(typeUrl, answered.version, answered.resources, req.error_detail);
        } else {
          if (st.held) st.held = { sent: st.held.sent, acked: st.held.sent };
          this.acked(typeUrl, answered.version);
        }
      }
    }
    if (req.resource_names_subscribe.length || req.resource_names_unsubscribe.length) st.syncedVersion = undefined;
    const vhds = typeUrl === TYPE_URL.virtualHost;
    for (const name of req.resource_names_subscribe) {
      if (name === '*') st.wildcard = true;
      // VHDS: a route configuration's name subscribes to its virtual hosts (answered even when it has none: Envoy waits for it); `<route configuration>/<host>` asks for the one a host selects.
      else if (vhds && name.includes('/')) (st.aliases ??= new Set()).add(name);
      else {
        if (vhds && !st.subscribed.has(name)) st.answerEmpty = true;
        st.subscribed.add(name);
      }
    }
    for (const name of req.resource_names_unsubscribe) {
      if (name === '*') st.wildcard = false;
      else {
        st.subscribed.delete(name);
        st.known.delete(name);
        st.aliases?.delete(name);
      }
    }
    // An answer frees its type for the changes that waited, and may let another type go (make before break).
    this.pushAll();
    this.processed(typeUrl);
  }

  protected held(typeUrl: string): Held | undefined {
    return this.types.get(typeUrl)?.held;
  }

  protected holds(typeUrl: string, name: string, version?: string): boolean {
    const st = this.types.get(typeUrl);
    if (!st || (typeUrl === TYPE_URL.cluster && !(st.wildcard || st.subscribed.has(name)))) return true;
    // `known` is what the client has once the response in flight is applied: a cluster it adds or changes must be ACKed first; endpoints it adds too (new endpoints for a cluster keep it usable).
    if (st.inFlight?.added.has(name) || (typeUrl === TYPE_URL.cluster && st.inFlight?.resources.has(name))) return false;
    return st.known.has(name) && (version === undefined || st.known.get(name) === version);
  }

  /**
   * Whether the client may still hold cluster `name` as an EDS cluster: its
   * CDS update or removal is not ACKed yet. Its endpoints stay until then
   * (an EDS cluster left without endpoints takes no traffic).
   */
  private clusterUnsettled(name: string, snapshot: Snapshot): boolean {
    const cds = this.types.get(TYPE_URL.cluster);
    if (!cds) return false;
    if (cds.inFlight?.resources.has(name) || cds.inFlight?.removed.has(name)) return true;
    return cds.known.get(name) !== snapshot.type(TYPE_URL.cluster)?.resources.get(name)?.version;
  }

  protected push(typeUrl: string, snapshot: Snapshot): void {
    const st = this.types.get(typeUrl);
    const type = snapshot.type(typeUrl);
    if (st && type && typeUrl === TYPE_URL.virtualHost) return this.pushVirtualHosts(st, type, snapshot);
    // Unchanged type, unchanged subscriptions: skip the diff (a CDS of 1,000 clusters, times every client, on every route edit).
    if (!st || !type || this.isClosed || st.inFlight || st.syncedVersion === type.version) return;
    const rejected = this.server.cache.lastNack(this.nodeId(), typeUrl)?.resources;
    const keep = REFERRED_TYPES.has(typeUrl) ? this.heldRefs() : undefined;
    const endpoints = typeUrl === TYPE_URL.endpoint;
    const wanted = st.wildcard ? new Set([...type.resources.keys(), ...st.subscribed]) : st.subscribed;
    const changed: Resource[] = [];
    const removed: string[] = [];
    /** Something is held back for make before break: the type is not up to date yet. */
    let waiting = false;
    /** A resource left out because the client rejected that very version. */
    let skipped = false;
    const remove = (name: string) => {
      if (keep?.has(name) || (endpoints && this.clusterUnsettled(name, snapshot))) waiting = true;
      else removed.push(name);
    };
    for (const name of wanted) {
      const resource = type.resources.get(name);
      if (!resource) {
        if (st.known.has(name)) remove(name);
      } else if (st.known.get(name) !== resource.version) {
        if (rejected?.get(name) === resource.version) skipped = true;
        else if (st.held && this.waits(typeUrl, resource, snapshot)) waiting = true;
        else changed.push(resource);
      }
    }
    if (st.wildcard)
      for (const name of st.known.keys()) if (!type.resources.has(name) && !wanted.has(name)) remove(name);
    /** Once this push is applied, the client has the whole type as it is: it shares the type's map (known.ts). */
    const inStep = st.wildcard && !waiting && !skipped;
    if (changed.length === 0 && removed.length === 0 && !st.answerEmpty) {
      if (!waiting) st.syncedVersion = type.version;
      if (inStep) st.known.share(type.resources);
      return;
    }
    if (this.writeBlocked()) return;
    if (!waiting) st.syncedVersion = type.version;
    st.answerEmpty = false;
    const nonce = this.nextNonce();
    const head = protobuf.Writer.create().uint32(DELTA_TAG.systemVersionInfo).string(type.version).uint32(DELTA_TAG.typeUrl).string(typeUrl);
    for (const name of removed) head.uint32(DELTA_TAG.removed).string(name);
    head.uint32(DELTA_TAG.nonce).string(nonce);
    const parts = [head.finish(), ...changed.map((r) => deltaEntry(typeUrl, r))];
    this.send({ parts } satisfies EncodedDeltaResponse, parts.reduce((n, p) => n + p.length, 0));
    const added = new Set(changed.filter((r) => !st.known.has(r.name)).map((r) => r.name));
    if (inStep) st.known.share(type.resources);
    else {
      for (const r of changed) st.known.set(r.name, r.version);
      for (const name of removed) st.known.delete(name);
    }
    if (st.held) {
      const sent = new Map(st.held.sent);
      for (const r of changed) sent.set(r.name, r);
      for (const name of removed) sent.delete(name);
      st.held = { ...st.held, sent };
    }
    st.inFlight = { nonce, version: type.version, resources: new Map(changed.map((r) => [r.name, r.version])), added, removed: new Set(removed) };
    this.pushed(typeUrl, type.version);
  }

  /**
   * VHDS: the client holds the virtual hosts of the route configurations it
   * subscribed to, tracked as the selection of the snapshot it was last sent
   * (one map shared by the clients that subscribe alike), so an edit costs
   * one diff for all of them (hostDiff), not a walk over 10,000 hosts per
   * client. Held back whole while a changed host names a cluster the client
   * has not ACKed (make before break).
   */
  private pushVirtualHosts(st: DeltaTypeState, type: TypeSnapshot, snapshot: Snapshot): void {
    if (this.isClosed || st.inFlight) return;
    const held = st.held!;
    const to = st.wildcard ? type.resources : vhdsSelection(type, st.subscribed);
    const rejected = this.server.cache.lastNack(this.nodeId(), TYPE_URL.virtualHost)?.version === type.version;
    const diff = to === held.sent || rejected ? NO_DIFF : hostDiff(held.sent, to);
    const aliases = [...(st.aliases ?? [])];
    if (diff.changed.length === 0 && diff.removed.length === 0 && aliases.length === 0 && !st.answerEmpty) return;
    if (diff.changed.some((r) => this.waits(TYPE_URL.virtualHost, r, snapshot))) return;
    if (this.writeBlocked()) return;
    const nonce = this.nextNonce();
    const head = protobuf.Writer.create().uint32(DELTA_TAG.systemVersionInfo).string(type.version).uint32(DELTA_TAG.typeUrl).string(TYPE_URL.virtualHost);
    for (const name of diff.removed) head.uint32(DELTA_TAG.removed).string(name);
    head.uint32(DELTA_TAG.nonce).string(nonce);
    const answers = aliasEntries(aliases, type);
    // A host an alias resolved to goes once, in its alias entry: a response names each resource once.
    const parts = [head.finish(), ...diff.changed.filter((r) => !answers.names.has(r.name)).map((r) => deltaEntry(TYPE_URL.virtualHost, r)), ...answers.entries];
    this.send({ parts } satisfies EncodedDeltaResponse, parts.reduce((n, p) => n + p.length, 0));
    if (!rejected) st.held = { sent: to, acked: held.acked };
    st.answerEmpty = false;
    st.aliases?.clear();
    st.inFlight = { nonce, version: type.version, resources: new Map(diff.changed.map((r) => [r.name, r.version])), added: new Set(), removed: new Set(diff.removed) };
    this.pushed(TYPE_URL.virtualHost, type.version);
  }
}

const NO_DIFF: HostDiff = { changed: [], removed: [] };

const NOTHING_HELD: ReadonlyMap<string, Resource | undefined> = new Map();

/** One `resources` entry of a DeltaDiscoveryResponse (tag, length, Resource), encoded once per resource and kept with it. */
function deltaEntry(typeUrl: string, r: Resource): Uint8Array {
  // Fields in any order are one message: the Any last, so the entry ends with the value (withValueLast).
  return (r.deltaEntry ??= keepValueIn(r, withValueLast(r, protobuf.Writer.create().uint32(DELTA_TAG.resources).fork().uint32(RESOURCE_TAG.name).string(r.name).uint32(RESOURCE_TAG.version).string(r.version).uint32(RESOURCE_TAG.resource).fork(), typeUrl).ldelim().ldelim().finish()));
}

function encodeDeltaEntry(resource: Json): Uint8Array {
  const { Resource: ResourceType } = discoveryTypes();
  const message = ResourceType.encode(ResourceType.fromObject(resource)).finish();
  return protobuf.Writer.create().uint32(DELTA_TAG.resources).bytes(message).finish();
}

/**
 * The answers to on-demand VHDS requests (`<route configuration>/<host>`):
 * for each virtual host they select (as Envoy's domain matching would), one
 * entry with those aliases; for each alias no host matches, an entry named
 * after it with no resource, which tells Envoy the host is unknown.
 */
function aliasEntries(aliases: readonly string[], type: TypeSnapshot): { entries: Uint8Array[]; names: Set<string> } {
  const found = new Map<Resource, string[]>();
  const entries: Uint8Array[] = [];
  for (const alias of aliases) {
    const slash = alias.lastIndexOf('/');
    const candidates = [...(routeConfigHosts(type).get(alias.slice(0, slash))?.values() ?? [])].map((r) => ({ domains: r.domains ?? [], r }));
    const r = (findVirtualHost(candidates, alias.slice(slash + 1)).vh as { r: Resource } | undefined)?.r;
    if (!r) entries.push(encodeDeltaEntry({ name: alias, aliases: [alias] }));
    else found.set(r, [...(found.get(r) ?? []), alias]);
  }
  for (const [r, names] of found) entries.push(encodeDeltaEntry({ name: r.name, version: r.version, aliases: names, resource: { type_url: TYPE_URL.virtualHost, value: r.value } }));
  return { entries, names: new Set([...found.keys()].map((r) => r.name)) };
}

const routeConfigHostsMemo = new WeakMap<TypeSnapshot, Map<string, Map<string, Resource>>>();

/** A VHDS type's virtual hosts by route configuration (`<route configuration>/<virtual host>`), once per type snapshot. */
function routeConfigHosts(type: TypeSnapshot): Map<string, Map<string, Resource>> {
  let groups = routeConfigHostsMemo.get(type);
  if (!groups) {
    groups = new Map();
    for (const [name, r] of type.resources) {
      const routeConfig = name.slice(0, name.lastIndexOf('/'));
      let group = groups.get(routeConfig);
      if (!group) groups.set(routeConfig, (group = new Map()));
      group.set(name, r);
    }
    routeConfigHostsMemo.set(type, groups);
  }
  return groups;
}

const selectionMemo = new WeakMap<TypeSnapshot, Map<string, ReadonlyMap<string, Resource>>>();

/**
 * The virtual hosts of the route configurations `namespaces`, as one map
 * shared by every client that subscribes to the same ones: the type's own
 * when they are all of them (an Envoy with every listener).
 */
function vhdsSelection(type: TypeSnapshot, namespaces: ReadonlySet<string>): ReadonlyMap<string, Resource> {
  const groups = routeConfigHosts(type);
  // Asked on every request of every client: no array is built for it.
  let all = true;
  for (const rc of groups.keys()) if (!namespaces.has(rc)) all = false;
  if (all) return type.resources;
  const key = [...namespaces].sort().join('\n');
  let memo = selectionMemo.get(type);
  if (!memo) selectionMemo.set(type, (memo = new Map()));
  let selection = memo.get(key);
  if (!selection) memo.set(key, (selection = new Map([...namespaces].flatMap((ns) => [...(groups.get(ns) ?? [])]))));
  return selection;
}

interface HostDiff {
  changed: Resource[];
  removed: string[];
}

const firstSyncMemo = new WeakMap<ReadonlyMap<string, Resource>, HostDiff>();
const diffMemo = new WeakMap<ReadonlyMap<string, Resource | undefined>, { to: ReadonlyMap<string, Resource>; diff: HostDiff }>();

/** What takes a client from the virtual hosts `from` to `to`: computed once for all the clients that make the same step. */
function hostDiff(from: ReadonlyMap<string, Resource | undefined>, to: ReadonlyMap<string, Resource>): HostDiff {
  // A new client's first sync: everything, kept by `to` (NOTHING_HELD lives for good and would hold an old snapshot's hosts).
  if (from === NOTHING_HELD) {
    let everything = firstSyncMemo.get(to);
    if (!everything) firstSyncMemo.set(to, (everything = { changed: [...to.values()], removed: [] }));
    return everything;
  }
  const memo = diffMemo.get(from);
  if (memo?.to === to) return memo.diff;
  const diff: HostDiff = { changed: [], removed: [] };
  for (const [name, r] of to) if (from.get(name)?.version !== r.version) diff.changed.push(r);
  for (const name of from.keys()) if (!to.has(name)) diff.removed.push(name);
  diffMemo.set(from, { to, diff });
  return diff;
}
