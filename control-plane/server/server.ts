/**
 * Aggregated Discovery Service over @grpc/grpc-js: state of the world
 * (StreamAggregatedResources) and incremental (DeltaAggregatedResources),
 * serving whatever the SnapshotCache holds; and the same streams as the
 * discovery services of one type (RDS, CDS, EDS, LDS, SDS, ECDS), for an
 * Envoy that gets Sluice's part from its own config sources (mesh mode).
 *
 * Protocol rules (each has a conformance test in test/xds), and where each lives:
 * - every response carries a fresh nonce; a request whose response_nonce is
 *   not the latest one sent for its type is stale and ignored (sotw.ts);
 * - SotW answers a type only after a request for it (one response in flight
 *   per type), and holds a request whose version_info is the current version
 *   (with the same names) until the snapshot changes (sotw.ts);
 * - on a change, types go out in ADS order: clusters, endpoints, listeners,
 *   routes, then the sidecar types (stream.ts); and make before break
 *   (ordering.ts): a listener or route naming a cluster waits until the
 *   client has ACKed it, a cluster stays until no listener or route the
 *   client holds names it;
 * - one response in flight per type, for delta too: changes while it is
 *   unanswered go out merged after the ACK/NACK (delta.ts); past 1 MiB
 *   unflushed to a stream (a client that stopped reading) nothing more is
 *   written to it (flow.ts);
 * - LDS, CDS and the sidecar types accept wildcard subscriptions (empty list
 *   or "*"); RDS and EDS return only the names asked for;
 * - delta sends only resources whose content hash differs from what the
 *   client has (initial_resource_versions on reconnect), and lists vanished
 *   ones in removed_resources (delta.ts);
 * - VHDS (serve --vhds, delta only): a route configuration's name subscribes
 *   to all its virtual hosts, `<route configuration>/<host>` asks for the one
 *   that host selects (answered with the request as alias, or empty) (vhds.ts);
 * - a NACK is recorded in the cache and the rejected version is not sent to
 *   that node again, on this stream or a later one (stream.ts, ../cache/cache.ts);
 * - the node id comes from the first request of a stream only (stream.ts).
 */
import { EventEmitter } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { shutdownGrpc } from '../../runtime/grpc-shutdown.js';
import type { SnapshotCache } from '../cache/cache.js';
import { DeltaStream } from './delta.js';
import type { XdsEvents } from './events.js';
import { PushQueue } from './flow.js';
import { addDiscoveryServices } from './services.js';
import { SotwStream } from './sotw.js';
import type { StreamStatus } from './status.js';
import type { StreamHost } from './stream.js';

/** The xDS server: its events (events.ts) tell what each stream does. */
export class XdsServer extends EventEmitter<XdsEvents> {
  private readonly grpcServer = new grpc.Server({
    'grpc.max_receive_message_length': 16 * 1024 * 1024,
    // HTTP/2 pings find clients that vanished without closing (node lost), so their streams and metrics go away.
    'grpc.keepalive_time_ms': 30_000,
    'grpc.keepalive_timeout_ms': 10_000,
  });
  private readonly streams = new Set<SotwStream | DeltaStream>();
  private nextStreamId = 1;

  constructor(
    readonly cache: SnapshotCache,
    logger?: Logger,
  ) {
    super();
    const host: StreamHost = { cache, pushes: new PushQueue(), events: this, logger };
    addDiscoveryServices(this.grpcServer, {
      sotw: (call) => this.track(new SotwStream(this.nextStreamId++, call, host)),
      delta: (call) => this.track(new DeltaStream(this.nextStreamId++, call, host)),
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
    await shutdownGrpc(this.grpcServer, 2000);
  }

  status(): StreamStatus[] {
    return [...this.streams].map((s) => s.status());
  }

  get connectedClients(): number {
    return this.streams.size;
  }

  private track(stream: SotwStream | DeltaStream): void {
    this.streams.add(stream);
    this.emit('connect', stream.status());
    stream.onClose(() => {
      this.streams.delete(stream);
      this.emit('disconnect', stream.status());
    });
  }
}
