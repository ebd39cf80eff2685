/**
 * Snapshot cache in the spirit of go-control-plane's: one snapshot for every
 * node, overridden per proxy of a fleet (a node's proxy name: server/status.ts);
 * streams watch it. It also keeps
 * what each node NACKed, so a rejected version is not sent to that node
 * again, on any stream, until the node ACKs another version of the type
 * (go-control-plane resends it on reconnect; the client NACKs it again, in a
 * loop).
 */
import type { Snapshot } from './snapshot.js';

export interface ErrorDetail {
  code: number;
  message: string;
}

export interface NackRecord {
  node: string;
  typeUrl: string;
  /** The rejected version (SotW `version_info`, delta `system_version_info`). */
  version: string;
  /** name -> version of every resource in the rejected response. */
  resources: ReadonlyMap<string, string>;
  errorDetail: ErrorDetail;
  at: Date;
}

const MAX_HISTORY = 256;

export class SnapshotCache {
  private shared: Snapshot | undefined;
  private readonly perProxy = new Map<string, Snapshot>();
  private readonly watchers = new Set<(proxy: string | undefined) => void>();
  /** Per node and type: the NACK whose version is not to be sent again. */
  private readonly nacks = new Map<string, Map<string, NackRecord>>();
  /** Every NACK, newest last, for /status. */
  private readonly history: NackRecord[] = [];

  /** Sets the snapshot of the nodes of `proxy`, or of every node whose proxy has none when `proxy` is omitted. */
  setSnapshot(snapshot: Snapshot, proxy?: string): void {
    const previous = proxy === undefined ? this.shared : this.perProxy.get(proxy);
    if (proxy === undefined) this.shared = snapshot;
    else this.perProxy.set(proxy, snapshot);
    if (previous?.version === snapshot.version) return;
    for (const watcher of this.watchers) watcher(proxy);
  }

  /** Sets every proxy's snapshot and the shared one; proxies left out lose theirs (their nodes get the shared one). */
  setSnapshots(shared: Snapshot, perProxy: ReadonlyMap<string, Snapshot>): void {
    for (const proxy of [...this.perProxy.keys()]) {
      if (perProxy.has(proxy)) continue;
      this.perProxy.delete(proxy);
      for (const watcher of this.watchers) watcher(proxy);
    }
    for (const [proxy, snapshot] of perProxy) this.setSnapshot(snapshot, proxy);
    this.setSnapshot(shared);
  }

  snapshotFor(proxy: string): Snapshot | undefined {
    return this.perProxy.get(proxy) ?? this.shared;
  }

  /** The snapshot of every node whose proxy has none of its own. */
  get current(): Snapshot | undefined {
    return this.shared;
  }

  /** The proxies with a snapshot of their own. */
  get proxies(): ReadonlyMap<string, Snapshot> {
    return this.perProxy;
  }

  /** Calls `onChange(proxy)` (undefined: every node without a proxy snapshot of its own) after each snapshot change; returns the unsubscribe. */
  watch(onChange: (proxy: string | undefined) => void): () => void {
    this.watchers.add(onChange);
    return () => this.watchers.delete(onChange);
  }

  recordNack(record: NackRecord): void {
    let byType = this.nacks.get(record.node);
    if (!byType) this.nacks.set(record.node, (byType = new Map()));
    byType.set(record.typeUrl, record);
    this.history.push(record);
    if (this.history.length > MAX_HISTORY) this.history.shift();
  }

  /**
   * The last NACK of `node` for `typeUrl`, until the node ACKs another
   * version of the type: once it has moved on, the same content coming back
   * later is a new push, not a loop.
   */
  lastNack(node: string, typeUrl: string): NackRecord | undefined {
    return this.nacks.get(node)?.get(typeUrl);
  }

  /** An ACK of `version`: forgets the node's NACK of the type unless it was of that very version. */
  recordAck(node: string, typeUrl: string, version: string): void {
    const byType = this.nacks.get(node);
    if (byType?.get(typeUrl) && byType.get(typeUrl)!.version !== version) byType.delete(typeUrl);
  }

  /** The most recent NACKs of every node (at most MAX_HISTORY). */
  allNacks(): NackRecord[] {
    return [...this.history];
  }
}
