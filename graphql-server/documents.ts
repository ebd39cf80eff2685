/**
 * Parsed and validated documents, per API and query text, in a bounded LRU:
 * a query is parsed, validated and checked against the limits once, not on
 * every request. The verdict (errors included) is cached too, so a client
 * repeating a bad query costs a lookup. An API rebuilt by a reconfiguration
 * is a new object with entries of its own: its schema may have changed.
 */
import { NO_TRACING, type Tracer } from '../runtime/tracing.js';
import { GraphQLError, parse, specifiedRules, validate, type DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import type { ExecutableApi } from './api.js';
import { checkLimits, extraRules, type Limits } from './limits.js';
import type { Metrics } from './metrics.js';

export interface PreparedDocument {
  /** undefined: the text did not parse. */
  document?: DocumentNode;
  /** Parse, validation and limit errors; empty: ready to execute. */
  errors: readonly GraphQLError[];
}

/** Total query text the cache holds at most, whatever the entry count: entries are as large as their query. */
const MAX_CACHED_TEXT = 32 * 1024 * 1024;

export class DocumentCache {
  private readonly cache: LRUCache<string, PreparedDocument>;
  private readonly ids = new WeakMap<ExecutableApi, number>();
  private nextId = 1;

  constructor(
    maxEntries: number,
    private readonly limits: Limits,
    private readonly metrics: Metrics,
    private readonly tracer: Tracer = NO_TRACING,
  ) {
    this.cache = new LRUCache({
      max: maxEntries,
      maxSize: MAX_CACHED_TEXT,
      sizeCalculation: (_v, key) => key.length || 1,
    });
  }

  /** The document for `query` on `api`, whose own depth limit is `apiMaxDepth` (0: the server's). */
  prepare(api: ExecutableApi, apiMaxDepth: number, query: string): PreparedDocument {
    let id = this.ids.get(api);
    if (id === undefined) this.ids.set(api, (id = this.nextId++));
    const key = `${id}\n${query}`;
    const hit = this.cache.get(key);
    if (hit) {
      this.metrics.documentCache.inc({ result: 'hit' });
      return hit;
    }
    this.metrics.documentCache.inc({ result: 'miss' });
    const prepared = this.build(api, apiMaxDepth, query);
    this.cache.set(key, prepared);
    return prepared;
  }

  private build(api: ExecutableApi, apiMaxDepth: number, query: string): PreparedDocument {
    let document: DocumentNode;
    try {
      document = this.tracer.span('graphql.parse', () => parse(query));
    } catch (err) {
      if (err instanceof GraphQLError) return { errors: [err] };
      throw err;
    }
    const errors = this.tracer.span('graphql.validate', () =>
      validate(api.schema, document, [...specifiedRules, ...extraRules(api.enableIntrospection)]),
    );
    if (errors.length) return { document, errors };
    return { document, errors: checkLimits(document, this.limits, apiMaxDepth) };
  }
}
