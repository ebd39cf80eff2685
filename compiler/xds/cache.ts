/**
 * Snapshot cache in the spirit of go-control-plane's: one snapshot for every
 * node, optionally overridden per node id; streams watch it. It also keeps
 * what each node NACKed, so a rejected version is never sent to that node
 * again (go-control-plane resends it on reconnect and loops).
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

export class SnapshotCache {
  private shared: Snapshot | undefined;
  private readonly perNode = new Map<string, Snapshot>();
  private readonly watchers = new Set<(node: string | undefined) => void>();
  private readonly nacks = new Map<string, Map<string, NackRecord>>();

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
  }

  /** The last NACK of `node` for `typeUrl`. */
  lastNack(node: string, typeUrl: string): NackRecord | undefined {
    return this.nacks.get(node)?.get(typeUrl);
  }

  allNacks(): NackRecord[] {
    return [...this.nacks.values()].flatMap((m) => [...m.values()]);
  }
}
