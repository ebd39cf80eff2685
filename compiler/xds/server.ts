/**
 * Aggregated Discovery Service over @grpc/grpc-js: state of the world
 * (StreamAggregatedResources) and incremental (DeltaAggregatedResources),
 * serving whatever the SnapshotCache holds.
 *
 * Protocol rules (each has a conformance test in test/xds):
 * - every response carries a fresh nonce; a request whose response_nonce is
 *   not the latest one sent for its type is stale and ignored (SotW);
 * - SotW answers a type only after a request for it (one response in flight
 *   per type), and holds a request whose version_info is the current version
 *   (with the same names) until the snapshot changes;
 * - on a change, types go out in ADS order: clusters, endpoints, listeners,
 *   routes, then the sidecar types;
 * - LDS, CDS and the sidecar types accept wildcard subscriptions (empty list
 *   or "*"); RDS and EDS return only the names asked for;
 * - delta sends only resources whose content hash differs from what the
 *   client has (initial_resource_versions on reconnect), and lists vanished
 *   ones in removed_resources;
 * - a NACK is recorded in the cache and the rejected version is not sent to
 *   that node again, on this stream or a later one;
 * - the node id comes from the first request of a stream only.
 */
import { EventEmitter } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import type { Logger } from 'pino';
import type { ErrorDetail, NackRecord, SnapshotCache } from './cache.js';
import { LISTENER_PORT_KEY } from './bootstrap.js';
import { ADS_SERVICE, discoveryTypes } from '../../protos/discovery.js';
import { TYPE_ORDER, WILDCARD_TYPES, sotwBody as encodeSotwBody, type Resource, type Snapshot, type TypeSnapshot } from './snapshot.js';

export interface NodeInfo {
  id: string;
  cluster: string;
  userAgent: string;
  /** From node metadata `sluice.listener_port` (set by `sluice bootstrap --listener-port`). */
  listenerPort?: number;
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

  constructor(
    readonly cache: SnapshotCache,
    private readonly logger?: Logger,
  ) {
    super();
    const types = discoveryTypes();
    const decoder = (type: protobuf.Type) => (buf: Buffer) =>
      type.toObject(type.decode(buf), { defaults: true, arrays: true, longs: String, enums: String });
    const definition: grpc.ServiceDefinition = {
      StreamAggregatedResources: {
        path: `${ADS_SERVICE}/StreamAggregatedResources`,
        requestStream: true,
        responseStream: true,
        requestSerialize: (m: object) => Buffer.from(types.DiscoveryRequest.encode(types.DiscoveryRequest.fromObject(m)).finish()),
        requestDeserialize: decoder(types.DiscoveryRequest),
        responseSerialize: (r: EncodedResponse) => Buffer.concat([r.body, protobuf.Writer.create().uint32(NONCE_TAG).string(r.nonce).finish()]),
        responseDeserialize: decoder(types.DiscoveryResponse),
      },
      DeltaAggregatedResources: {
        path: `${ADS_SERVICE}/DeltaAggregatedResources`,
        requestStream: true,
        responseStream: true,
        requestSerialize: (m: object) => Buffer.from(types.DeltaDiscoveryRequest.encode(types.DeltaDiscoveryRequest.fromObject(m)).finish()),
        requestDeserialize: decoder(types.DeltaDiscoveryRequest),
        responseSerialize: (r: EncodedDeltaResponse) => Buffer.concat(r.parts),
        responseDeserialize: decoder(types.DeltaDiscoveryResponse),
      },
    };
    this.grpcServer.addService(definition, {
      StreamAggregatedResources: (call: grpc.ServerDuplexStream<Request, EncodedResponse>) =>
        this.track(new SotwStream(this.nextStreamId++, call, this)),
      DeltaAggregatedResources: (call: grpc.ServerDuplexStream<DeltaRequest, EncodedDeltaResponse>) =>
        this.track(new DeltaStream(this.nextStreamId++, call, this)),
    });
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

/** Field 5 (nonce), wire type 2. */
const NONCE_TAG = (5 << 3) | 2;
/** Fields of DeltaDiscoveryResponse, wire type 2. */
const DELTA_TAG = { systemVersionInfo: (1 << 3) | 2, resources: (2 << 3) | 2, typeUrl: (4 << 3) | 2, removed: (6 << 3) | 2, nonce: NONCE_TAG };

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
  metadata?: { fields?: Record<string, { number_value?: number }> } | null;
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

  constructor(
    readonly id: number,
    protected readonly call: grpc.ServerDuplexStream<any, any>,
    protected readonly server: XdsServer,
  ) {
    this.unwatch = server.cache.watch((node) => {
      if (this.node && (node === undefined || node === this.node.id)) this.pushAll();
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

  end(): void {
    if (!this.closed) this.call.end();
    this.close();
  }

  onClose(handler: () => void): void {
    this.closeHandlers.push(handler);
  }

  status(): StreamStatus {
    return { id: this.id, protocol: this.protocol, node: this.node, types: Object.fromEntries(this.typeStatus) };
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
      listenerPort: node?.metadata?.fields?.[LISTENER_PORT_KEY]?.number_value,
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

  /** After a snapshot change: each subscribed type, in ADS order. */
  protected pushAll(): void {
    if (this.closed) return;
    const snapshot = this.server.cache.snapshotFor(this.nodeId());
    if (!snapshot) return;
    const subscribed = new Set(this.types.keys());
    for (const typeUrl of TYPE_ORDER) if (subscribed.has(typeUrl)) this.push(typeUrl, snapshot);
    for (const typeUrl of [...subscribed].sort()) if (!TYPE_ORDER.includes(typeUrl)) this.push(typeUrl, snapshot);
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
    this.server.log()?.warn({ node: record.node, typeUrl, version, error: errorDetail.message }, 'xds NACK');
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
  /** The type snapshot of the last response (its resources: selected by sentNamesKey). */
  sentType?: TypeSnapshot;
  /** version_info of the latest request: what the client has applied. */
  clientVersion: string;
  /** A request is waiting for a response. */
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
    if (st && req.response_nonce !== st.nonce) {
      // An answer to a response that has since been superseded (or never sent).
      this.server.emit('stale', { node: this.nodeId(), typeUrl, nonce: req.response_nonce, stream: this.id });
      this.processed(typeUrl);
      return;
    }
    if (st && req.response_nonce) {
      if (req.error_detail) this.nacked(typeUrl, st.sentVersion ?? '', sentResources(st), req.error_detail);
      else this.acked(typeUrl, req.version_info);
    }
    const names = req.resource_names.filter((n) => n !== '*');
    const wildcard = req.resource_names.includes('*') || (req.resource_names.length === 0 && WILDCARD_TYPES.has(typeUrl));
    st ??= { names, wildcard, clientVersion: '', watchOpen: false };
    st.names = names;
    st.wildcard = wildcard;
    st.clientVersion = req.version_info;
    // A reconnecting client that already has a version has it for the names it asks for.
    if (first && req.version_info) st.sentNamesKey = namesKey(st);
    st.watchOpen = true;
    this.types.set(typeUrl, st);
    const snapshot = this.server.cache.snapshotFor(this.nodeId());
    if (snapshot) this.push(typeUrl, snapshot);
    this.processed(typeUrl);
  }

  protected push(typeUrl: string, snapshot: Snapshot): void {
    const st = this.types.get(typeUrl);
    const type = snapshot.type(typeUrl);
    if (!st || !st.watchOpen || !type || this.isClosed) return;
    const key = namesKey(st);
    if (type.version === st.clientVersion && key === st.sentNamesKey) return;
    if (this.server.cache.lastNack(this.nodeId(), typeUrl)?.version === type.version) return;
    const select = () => (st.wildcard ? [...type.resources.values()] : [...new Set(st.names)].flatMap((n) => type.resources.get(n) ?? []));
    const nonce = this.nextNonce();
    this.call.write({ body: sotwBody(snapshot, typeUrl, type, key, select), nonce } satisfies EncodedResponse);
    st.nonce = nonce;
    st.sentVersion = type.version;
    st.sentNamesKey = key;
    st.sentType = type;
    st.watchOpen = false;
    this.pushed(typeUrl, type.version);
  }
}

/** name -> version of what the last response held; computed only for a NACK, to keep streams small. */
function sentResources(st: SotwTypeState): Map<string, string> {
  const resources = st.sentType?.resources ?? new Map<string, Resource>();
  const names = st.sentNamesKey === '*' ? [...resources.keys()] : (st.sentNamesKey ?? '').split('\n');
  return new Map(names.flatMap((n) => (resources.has(n) ? [[n, resources.get(n)!.version] as const] : [])));
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
  known: Map<string, string>;
  /** Responses awaiting ACK/NACK, by nonce. */
  pending: Map<string, { version: string; resources: Map<string, string> }>;
  /**
   * A fresh wildcard subscription is answered even when there is nothing in
   * it, so the client knows the set is empty (Envoy would otherwise wait out
   * its initial fetch timeout).
   */
  answerEmpty: boolean;
  /** Type version the client was last brought up to date with, for the current subscriptions. */
  syncedVersion?: string;
}

/** Unanswered delta responses kept per type; older ones can no longer be ACKed. */
const MAX_PENDING = 32;

class DeltaStream extends AdsStream<DeltaTypeState> {
  readonly protocol = 'delta' as const;

  protected onRequest(req: DeltaRequest): void {
    this.adoptNode(req.node);
    const typeUrl = req.type_url;
    if (!typeUrl) return;
    let st = this.types.get(typeUrl);
    if (!st) {
      const known = new Map(Object.entries(req.initial_resource_versions ?? {}));
      const wildcard = (req.resource_names_subscribe.length === 0 && WILDCARD_TYPES.has(typeUrl)) || req.resource_names_subscribe.includes('*');
      st = { subscribed: new Set(), wildcard, known, pending: new Map(), answerEmpty: wildcard && known.size === 0 };
      this.types.set(typeUrl, st);
    }
    if (req.response_nonce) {
      const answered = st.pending.get(req.response_nonce);
      if (!answered) this.server.emit('stale', { node: this.nodeId(), typeUrl, nonce: req.response_nonce, stream: this.id });
      else {
        st.pending.delete(req.response_nonce);
        if (req.error_detail) this.nacked(typeUrl, answered.version, answered.resources, req.error_detail);
        else this.acked(typeUrl, answered.version);
      }
    }
    if (req.resource_names_subscribe.length || req.resource_names_unsubscribe.length) st.syncedVersion = undefined;
    for (const name of req.resource_names_subscribe) {
      if (name === '*') st.wildcard = true;
      else st.subscribed.add(name);
    }
    for (const name of req.resource_names_unsubscribe) {
      if (name === '*') st.wildcard = false;
      else {
        st.subscribed.delete(name);
        st.known.delete(name);
      }
    }
    const snapshot = this.server.cache.snapshotFor(this.nodeId());
    if (snapshot) this.push(typeUrl, snapshot);
    this.processed(typeUrl);
  }

  protected push(typeUrl: string, snapshot: Snapshot): void {
    const st = this.types.get(typeUrl);
    const type = snapshot.type(typeUrl);
    // Unchanged type, unchanged subscriptions: skip the diff (a CDS of 1,000 clusters, times every client, on every route edit).
    if (!st || !type || this.isClosed || st.syncedVersion === type.version) return;
    st.syncedVersion = type.version;
    const rejected = this.server.cache.lastNack(this.nodeId(), typeUrl)?.resources;
    const wanted = st.wildcard ? new Set([...type.resources.keys(), ...st.subscribed]) : st.subscribed;
    const changed = [];
    const removed: string[] = [];
    for (const name of wanted) {
      const resource = type.resources.get(name);
      if (!resource) {
        if (st.known.has(name)) removed.push(name);
      } else if (st.known.get(name) !== resource.version && rejected?.get(name) !== resource.version) {
        changed.push(resource);
      }
    }
    if (st.wildcard)
      for (const name of st.known.keys()) if (!type.resources.has(name) && !wanted.has(name)) removed.push(name);
    if (changed.length === 0 && removed.length === 0 && !st.answerEmpty) return;
    st.answerEmpty = false;
    const nonce = this.nextNonce();
    const head = protobuf.Writer.create().uint32(DELTA_TAG.systemVersionInfo).string(type.version).uint32(DELTA_TAG.typeUrl).string(typeUrl);
    for (const name of removed) head.uint32(DELTA_TAG.removed).string(name);
    head.uint32(DELTA_TAG.nonce).string(nonce);
    this.call.write({ parts: [head.finish(), ...changed.map((r) => deltaEntry(snapshot, typeUrl, r))] } satisfies EncodedDeltaResponse);
    for (const r of changed) st.known.set(r.name, r.version);
    for (const name of removed) st.known.delete(name);
    st.pending.set(nonce, { version: type.version, resources: new Map(changed.map((r) => [r.name, r.version])) });
    if (st.pending.size > MAX_PENDING) st.pending.delete(st.pending.keys().next().value!);
    this.pushed(typeUrl, type.version);
  }
}

/** One `resources` entry of a DeltaDiscoveryResponse (tag, length, Resource), encoded once per snapshot. */
function deltaEntry(snapshot: Snapshot, typeUrl: string, r: Resource): Uint8Array {
  const key = `${typeUrl}\n${r.name}`;
  let entry = snapshot.deltaEntries.get(key);
  if (!entry) {
    const { Resource: ResourceType } = discoveryTypes();
    const message = ResourceType.encode(ResourceType.fromObject({ name: r.name, version: r.version, resource: { type_url: typeUrl, value: r.value } })).finish();
    entry = Buffer.from(protobuf.Writer.create().uint32(DELTA_TAG.resources).bytes(message).finish());
    snapshot.deltaEntries.set(key, entry);
  }
  return entry;
}
