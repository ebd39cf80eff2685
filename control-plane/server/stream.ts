/**
 * What every discovery stream does the same way, SotW or delta: the node
 * from its first request, a push of each subscribed type in ADS order on a
 * snapshot change, a response at a time within flow control (flow.ts), make
 * before break (ordering.ts), ACKs and NACKs recorded in the cache, and the
 * server's events. sotw.ts and delta.ts hold what differs: each protocol's
 * per-type state, its requests and its responses.
 */
import type * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { DEFAULT_PROXY_NAME } from '../../compiler/resolve/gateways.js';
import { TYPE_URL } from '../../contract/names.js';
import { LISTENER_PORT_KEY, PROXY_ROLE_KEY } from '../bootstrap.js';
import type { ErrorDetail, NackRecord, SnapshotCache } from '../cache/cache.js';
import { TYPE_ORDER, type Resource, type Snapshot } from '../cache/snapshot.js';
import type { XdsEventSink } from './events.js';
import { StreamWrites, type Pushable, type PushQueue } from './flow.js';
import { HeldRefs, waitsForClusters, type Held } from './ordering.js';
import { proxyOf, type NodeInfo, type StreamStatus, type TypeStatus } from './status.js';
import type { NodeMessage } from './wire.js';

/** What a stream needs of the server that runs it. */
export interface StreamHost {
  readonly cache: SnapshotCache;
  readonly pushes: PushQueue;
  readonly events: XdsEventSink;
  readonly logger?: Logger;
}

/** A stream of one protocol: its per-type state, the requests it reads and the responses it writes. */
export abstract class AdsStream<TypeState, Req, Res> implements Pushable {
  protected node: NodeInfo | undefined;
  /** Protocol state of each type the client subscribed to. */
  protected readonly types = new Map<string, TypeState>();
  protected readonly typeStatus = new Map<string, TypeStatus>();
  private nonceCounter = 0;
  private closed = false;
  private readonly closeHandlers: Array<() => void> = [];
  private readonly unwatch: () => void;
  private readonly writes: StreamWrites;
  private readonly refs = new HeldRefs();
  private readonly connectedAt = new Date().toISOString();

  constructor(
    readonly id: number,
    protected readonly call: grpc.ServerDuplexStream<Req, Res>,
    protected readonly host: StreamHost,
  ) {
    this.writes = new StreamWrites(this, host.pushes);
    this.unwatch = host.cache.watch((proxy) => {
      if (this.node && (proxy === undefined ? !host.cache.proxies.has(this.node.proxy) : proxy === this.node.proxy))
        host.pushes.schedule(this);
    });
    call.on('data', (msg: Req) => {
      try {
        this.onRequest(msg);
      } catch (err) {
        host.logger?.error({ err, stream: id }, 'xds request failed');
        call.destroy(err as Error);
      }
    });
    call.on('end', () => this.end());
    call.on('error', () => this.close());
    call.on('close', () => this.close());
    call.on('cancelled', () => this.close());
  }

  abstract readonly protocol: 'sotw' | 'delta';
  protected abstract onRequest(msg: Req): void;
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
    return {
      id: this.id,
      protocol: this.protocol,
      node: this.node,
      types: Object.fromEntries(this.typeStatus),
      address: this.call.getPeer(),
      connectedAt: this.connectedAt,
      unflushedBytes: this.writes.unflushed,
    };
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
    this.host.events.emit('node', this.status());
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
    return this.host.cache.snapshotFor(this.node?.proxy ?? DEFAULT_PROXY_NAME);
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

  /** Whether a response must wait (flow.ts); what changes meanwhile goes out merged later. */
  protected writeBlocked(): boolean {
    return this.writes.blocked();
  }

  protected send(message: Res, bytes: number): void {
    this.writes.send(bytes, (written) => this.call.write(message, written));
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
    this.host.cache.recordAck(this.nodeId(), typeUrl, version);
    this.host.events.emit('ack', { node: this.nodeId(), typeUrl, version, stream: this.id });
  }

  protected nacked(
    typeUrl: string,
    version: string,
    resources: ReadonlyMap<string, string>,
    errorDetail: ErrorDetail,
  ): void {
    const record: NackRecord = { node: this.nodeId(), typeUrl, version, resources, errorDetail, at: new Date() };
    this.host.cache.recordNack(record);
    this.typeState(typeUrl).nacked = { version, errorDetail, at: record.at.toISOString() };
    // The full detail is on /status; the log gets its head (Envoy's can run to many kilobytes).
    const error =
      errorDetail.message.length > 500
        ? `${errorDetail.message.slice(0, 500)}… (${errorDetail.message.length} characters)`
        : errorDetail.message;
    this.host.logger?.warn({ node: record.node, typeUrl, version, error }, 'xds NACK');
    this.host.events.emit('nack', record);
  }

  /** A request answering a nonce that is not the latest one sent for its type: ignored. */
  protected stale(typeUrl: string, nonce: string): void {
    this.host.events.emit('stale', { node: this.nodeId(), typeUrl, nonce, stream: this.id });
  }

  /** Emitted after a request has been handled, including any response it caused. */
  protected processed(typeUrl: string): void {
    this.host.events.emit('request', { node: this.nodeId(), typeUrl, stream: this.id });
  }

  protected pushed(typeUrl: string, version: string): void {
    this.typeState(typeUrl).sent = version;
    this.host.events.emit('push', { node: this.nodeId(), typeUrl, version, stream: this.id });
  }
}
