/**
 * A bounded memo of a pure function: a result is computed once per key and
 * kept; when full, the oldest entry goes (first in, first out). Used on
 * every check, where lru-cache's recency bookkeeping cost about 1 µs a
 * lookup, measured in the sidecar under load, three lookups a check. For
 * results that never go stale, which entry is evicted first matters little.
 */
export class BoundedMemo<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(
    private readonly max: number,
    private readonly compute: (key: K) => V,
  ) {}

  /** The result for `key`; `compute` never returns undefined. */
  get(key: K): V {
    let value = this.entries.get(key);
    if (value === undefined) {
      if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, (value = this.compute(key)));
    }
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}
