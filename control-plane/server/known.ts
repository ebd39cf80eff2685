/**
 * What a delta client has of one type: name -> version. A client in step
 * with a snapshot's whole type (a wildcard CDS of 10,000 clusters, say)
 * shares that type's resource map instead of holding a copy, so hundreds of
 * clients cost one map; the first change of its own (a resource held back,
 * or rejected) copies it.
 */
import type { Resource } from '../cache/snapshot.js';

export class KnownVersions {
  private shared: ReadonlyMap<string, Resource> | undefined;
  private own: Map<string, string>;

  constructor(initial: Iterable<[string, string]> = []) {
    this.own = new Map(initial);
  }

  /** The client now has exactly `resources`, in their versions. */
  share(resources: ReadonlyMap<string, Resource>): void {
    this.shared = resources;
    this.own = new Map();
  }

  get(name: string): string | undefined {
    return this.shared ? this.shared.get(name)?.version : this.own.get(name);
  }

  has(name: string): boolean {
    return this.shared ? this.shared.has(name) : this.own.has(name);
  }

  keys(): IterableIterator<string> {
    return this.shared ? this.shared.keys() : this.own.keys();
  }

  get size(): number {
    return this.shared ? this.shared.size : this.own.size;
  }

  set(name: string, version: string): void {
    this.owned().set(name, version);
  }

  delete(name: string): void {
    if (this.has(name)) this.owned().delete(name);
  }

  private owned(): Map<string, string> {
    if (this.shared) {
      this.own = new Map([...this.shared].map(([name, r]) => [name, r.version]));
      this.shared = undefined;
    }
    return this.own;
  }
}
