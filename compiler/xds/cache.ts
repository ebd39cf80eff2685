/**
 * Snapshot cache in the spirit of go-control-plane's: one snapshot for every
 * node, optionally overridden per node id; streams watch it. It also keeps
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
  private readonly perNode = new Map<string, Snapshot>();
  private readonly watchers = new Set<(node: string | undefined) => void>();
  /** Per node and type: the NACK whose version is not to be sent again. */
  private readonly nacks = new Map<string, Map<string, NackRecord>>();
  /** Every NACK, newest last, for /status. */
  private readonly history: NackRecord[] = [];

  /** Sets the snapshot of `node`, or of every node without its own when `node` is omitted. */
  setSnapshot(snapshot: Snapshot, node?: string): void {
    const previous = node === undefined ? this.shared : this.perNode.get(node);
    if (node === undefined) this.shared = snapshot;
    else this.perNode.set(node, snapshot);
    if (previous?.version === snapshot.version) return;
    for (const watcher of this.watchers) watcher(node);
  }

  snapshotFor(node: string): Snapshot | undefined {
    return this.perNode.get(node) ?? this.shared;
  }

  get current(): Snapshot | undefined {
    return this.shared;
  }

  /** Calls `onChange(node)` (undefined: every node) after each snapshot change; returns the unsubscribe. */
  watch(onChange: (node: string | undefined) => void): () => void {
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
