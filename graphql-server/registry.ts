/**
 * The APIs being served, by name. A configuration set is applied all or
 * nothing: every API is built first (stitched ones after the APIs they
 * merge), and only when all build is the whole set swapped in at once; an API
 * that fails fails the set and the previous one stays. An API whose config is
 * unchanged (and whose subschemas are unchanged) is kept, not rebuilt.
 *
 * A request holds a lease on the API it started with (and, for a stitched
 * API, on the APIs it merges): a swap never drops it, and a replaced API is
 * closed only once its last request is done.
 */
import type { Logger } from 'pino';
import type { Tracer } from '../runtime/tracing.js';
import type { ExecutableApi, GraphQLApiConfig, ResolverDeps, SharedService } from './api.js';
import { ConfigError } from './config.js';
import { buildLocalApi } from './local.js';
import { buildRemoteApi } from './remote.js';
import { buildStitchedApi } from './stitch/index.js';

interface Entry {
  api: ExecutableApi;
  config: GraphQLApiConfig;
  /** The config as canonical JSON: equal keys, same API. */
  key: string;
  /** Entries a stitched API merges. */
  subs: Entry[];
  inflight: number;
  /** live: in the current set; retired: replaced, closed when its last request is done. */
  state: 'live' | 'retired' | 'closed';
}

export interface Lease {
  api: ExecutableApi;
  config: GraphQLApiConfig;
  release(): void;
}

/** Services shared by every API of the server, created on first use and closed with the server. */
export class SharedServices {
  private readonly services = new Map<string, SharedService>();

  get<T extends SharedService>(key: string, create: () => T): T {
    let s = this.services.get(key);
    if (!s) this.services.set(key, (s = create()));
    return s as T;
  }

  async close(): Promise<void> {
    const all = [...this.services.values()];
    this.services.clear();
    await Promise.allSettled(all.map(async (s) => s.close?.()));
  }
}

export interface RegistryOptions {
  logger: Logger;
  defaultTimeoutMs: number;
  tracer?: Tracer;
}

function canonical(config: GraphQLApiConfig): string {
  return JSON.stringify(config, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v));
}

/** Stitched APIs after the APIs they merge; a cycle is a ConfigError. */
function buildOrder(configs: GraphQLApiConfig[]): GraphQLApiConfig[] {
  const byName = new Map(configs.map((c) => [c.name, c]));
  const order: GraphQLApiConfig[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (c: GraphQLApiConfig, path: string[]) => {
    if (state.get(c.name) === 'done') return;
    if (state.get(c.name) === 'visiting')
      throw new ConfigError(
        `stitched GraphQLApis form a cycle: ${[...path.slice(path.indexOf(c.name)), c.name].join(' -> ')}`,
      );
    state.set(c.name, 'visiting');
    for (const s of c.stitched?.subschemas ?? []) {
      const sub = byName.get(s.api);
      if (!sub) throw new ConfigError(`GraphQLApi ${c.name}: stitched subschema ${s.api} is not in this configuration`);
      visit(sub, [...path, c.name]);
    }
    state.set(c.name, 'done');
    order.push(c);
  };
  for (const c of configs) visit(c, []);
  return order;
}

export class ApiRegistry {
  private entries = new Map<string, Entry>();
  private configured = false;
  /** Applies run one at a time, in the order they were asked for. */
  private applying: Promise<unknown> = Promise.resolve();
  readonly shared = new SharedServices();

  constructor(private readonly opts: RegistryOptions) {}

  /** True once a set has been applied (an empty one included). */
  get ready(): boolean {
    return this.configured;
  }

  get names(): string[] {
    return [...this.entries.keys()];
  }

  /** Builds and swaps in `configs`, or throws and changes nothing. */
  apply(configs: GraphQLApiConfig[]): Promise<void> {
    const run = this.applying.then(() => this.applyNow(configs));
    this.applying = run.catch(() => undefined);
    return run;
  }

  private deps(config: GraphQLApiConfig): ResolverDeps {
    return {
      api: config.name,
      logger: this.opts.logger.child({ api: config.name }),
      logSensitiveInfo: config.logSensitiveInfo,
      defaultTimeoutMs: this.opts.defaultTimeoutMs,
      ...(this.opts.tracer ? { tracer: this.opts.tracer } : {}),
      protoDescriptorBin: config.executable?.protoDescriptorBin,
      shared: (key, create) => this.shared.get(key, create),
    };
  }

  private async build(config: GraphQLApiConfig, subs: Entry[]): Promise<ExecutableApi> {
    const deps = this.deps(config);
    if (config.executable?.remote) {
      const { schemaDefinition, enableIntrospection, remote } = config.executable;
      return buildRemoteApi(
        config.name,
        { schemaDefinition, enableIntrospection, remote, logSensitiveInfo: config.logSensitiveInfo },
        deps,
      );
    }
    if (config.executable) return buildLocalApi(config.name, config.executable, deps);
    return buildStitchedApi(config.name, config.stitched!, new Map(subs.map((e) => [e.api.name, e.api])), deps);
  }

  private async applyNow(configs: GraphQLApiConfig[]): Promise<void> {
    const next = new Map<string, Entry>();
    const built: Entry[] = [];
    try {
      for (const config of buildOrder(configs)) {
        const subs = (config.stitched?.subschemas ?? []).map((s) => next.get(s.api)!);
        const key = canonical(config);
        const old = this.entries.get(config.name);
        if (old && old.key === key && old.subs.length === subs.length && old.subs.every((s, i) => s === subs[i])) {
          next.set(config.name, old);
          continue;
        }
        let api: ExecutableApi;
        try {
          api = await this.build(config, subs);
        } catch (err) {
          const message = (err as Error).message;
          throw new ConfigError(message.includes(config.name) ? message : `GraphQLApi ${config.name}: ${message}`);
        }
        const entry: Entry = { api, config, key, subs, inflight: 0, state: 'live' };
        built.push(entry);
        next.set(config.name, entry);
      }
    } catch (err) {
      await Promise.allSettled(built.map(async (e) => e.api.close?.()));
      throw err;
    }
    const previous = this.entries;
    this.entries = next;
    this.configured = true;
    const kept = new Set(next.values());
    for (const old of previous.values()) {
      if (kept.has(old)) continue;
      old.state = 'retired';
      this.closeIfIdle(old);
    }
    this.opts.logger.info({ apis: [...next.keys()], rebuilt: built.map((e) => e.config.name) }, 'GraphQL APIs applied');
  }

  /** The API named `name` and its config, held until release(); undefined: no such API. */
  acquire(name: string): Lease | undefined {
    const entry = this.entries.get(name);
    if (!entry) return undefined;
    const held = new Set<Entry>();
    const hold = (e: Entry) => {
      if (held.has(e)) return;
      held.add(e);
      e.inflight++;
      e.subs.forEach(hold);
    };
    hold(entry);
    let released = false;
    return {
      api: entry.api,
      config: entry.config,
      release: () => {
        if (released) return;
        released = true;
        for (const e of held) {
          e.inflight--;
          this.closeIfIdle(e);
        }
      },
    };
  }

  private closeIfIdle(entry: Entry): void {
    if (entry.state !== 'retired' || entry.inflight > 0) return;
    entry.state = 'closed';
    entry.api
      .close?.()
      .catch((err: unknown) =>
        this.opts.logger.warn(
          { api: entry.api.name, err: (err as Error).message },
          'closing a replaced GraphQL API failed',
        ),
      );
  }

  /** Closes every API and the shared services (after the server stopped taking requests). */
  async close(): Promise<void> {
    await this.applying;
    const all = [...this.entries.values()];
    this.entries = new Map();
    await Promise.allSettled(all.map(async (e) => e.api.close?.()));
    await this.shared.close();
  }
}
