/**
 * What serve remembers for its status page and `sluice check` beyond the
 * current state: when and why the snapshot changed (the input files and
 * resources edited since the one before, and the xDS resources that changed
 * with them), and since when each type has had its current version (how long
 * an Envoy on an older one has been behind).
 *
 * An input resource's edit is seen by identity: the incremental compiler
 * hands back the same object for a document it did not parse again.
 */
import type { Resource } from '../../compiler/validate/validate.js';
import type { Snapshot } from '../cache/snapshot.js';
import { snapshotChanges } from '../compile-log.js';
import type { ControlPlane } from '../control.js';

/** Changes kept on the page: the recent past is what explains the present. */
const HISTORY_LIMIT = 20;
/** Names kept per list of one change (a first snapshot adds every resource). */
const NAMES_LIMIT = 50;

export interface NameChanges {
  added: string[];
  changed: string[];
  removed: string[];
}

export interface SnapshotChange {
  generation: number;
  version: string;
  /** ISO 8601. */
  at: string;
  /** Input files whose resources were added, edited or removed since the previous snapshot. */
  files: string[];
  /** Input resources (`Kind namespace/name`) added, edited or removed since the previous snapshot. */
  resources: NameChanges;
  /** Per xDS type (short name), of every proxy's snapshot: `+added ~changed -removed`. */
  xds: Record<string, string>;
}

const cut = (names: string[]) =>
  names.length > NAMES_LIMIT ? [...names.slice(0, NAMES_LIMIT), `… ${names.length - NAMES_LIMIT} more`] : names;

export class StatusBook {
  /** Newest first. */
  readonly changes: SnapshotChange[] = [];
  private inputs = new Map<string, Resource>();
  /** The list `inputs` was made from: an endpoint-only compile keeps the list of the last full one, with nothing new in it. */
  private inputsFrom: readonly Resource[] | undefined;
  /** Input changes seen in compiles since the last new snapshot (a failed compile's edits count for the next good one). */
  private pending = {
    added: new Set<string>(),
    changed: new Set<string>(),
    removed: new Set<string>(),
    files: new Set<string>(),
  };
  private served = new Map<string, Snapshot>();
  /** `proxy|typeUrl` -> the version and when it became current. */
  private readonly versions = new Map<string, { version: string; since: Date }>();

  constructor(private readonly control: ControlPlane) {
    control.on('compiled', (outcome) => {
      this.noteInputs(control.inputs);
      if (outcome.ok && outcome.changed) this.noteSnapshot(outcome.generation, outcome.version);
    });
  }

  /** When `typeUrl` of the snapshot of `proxy` (a fleet's proxy, or '' for the shared one) took `version`; undefined if it never had it. */
  versionSince(proxy: string, typeUrl: string, version: string): Date | undefined {
    const known = this.versions.get(`${proxy}|${typeUrl}`);
    return known?.version === version ? known.since : undefined;
  }

  private noteInputs(resources: readonly Resource[]): void {
    // Tens of thousands of resources in a cluster: not walked again for an endpoint change.
    if (resources === this.inputsFrom) return;
    this.inputsFrom = resources;
    const now = new Map<string, Resource>();
    for (const r of resources) now.set(`${r.origin.resource}\0${r.origin.file}`, r);
    const p = this.pending;
    for (const [key, r] of now) {
      const before = this.inputs.get(key);
      if (before === r) continue;
      (before ? p.changed : p.added).add(r.origin.resource);
      if (r.origin.file) p.files.add(r.origin.file);
    }
    for (const [key, r] of this.inputs)
      if (!now.has(key)) {
        p.removed.add(r.origin.resource);
        if (r.origin.file) p.files.add(r.origin.file);
      }
    this.inputs = now;
  }

  private noteSnapshot(generation: number, version: string): void {
    const at = new Date();
    const snapshots = new Map<string, Snapshot>();
    if (this.control.cache.current) snapshots.set('', this.control.cache.current);
    for (const [proxy, s] of this.control.cache.proxies) snapshots.set(proxy, s);
    const xds: Record<string, { added: number; changed: number; removed: number }> = {};
    for (const [proxy, snapshot] of snapshots) {
      for (const [type, c] of Object.entries(snapshotChanges(this.served.get(proxy), snapshot))) {
        const sum = (xds[type] ??= { added: 0, changed: 0, removed: 0 });
        sum.added += c.added.length;
        sum.changed += c.changed.length;
        sum.removed += c.removed.length;
      }
      for (const [typeUrl, t] of snapshot.types) {
        const key = `${proxy}|${typeUrl}`;
        if (this.versions.get(key)?.version !== t.version) this.versions.set(key, { version: t.version, since: at });
      }
    }
    this.served = snapshots;
    const p = this.pending;
    this.changes.unshift({
      generation,
      version,
      at: at.toISOString(),
      files: cut([...p.files].sort()),
      resources: { added: cut([...p.added]), changed: cut([...p.changed]), removed: cut([...p.removed]) },
      xds: Object.fromEntries(
        Object.entries(xds).map(([type, c]) => [type, `+${c.added} ~${c.changed} -${c.removed}`]),
      ),
    });
    this.changes.length = Math.min(this.changes.length, HISTORY_LIMIT);
    this.pending = { added: new Set(), changed: new Set(), removed: new Set(), files: new Set() };
  }
}
