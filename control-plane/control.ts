/**
 * The control loop of `sluice serve`: compile the inputs, turn the xDS set
 * into a snapshot, put it in the cache; watch the inputs and do it again. A
 * run with errors changes nothing: the last good snapshot keeps being served
 * and the errors are kept for the admin port and logged.
 *
 * One Compiler and one SnapshotEncoder live as long as the loop, so a run
 * after an edit does only the work the edit calls for (see compiler/pipeline.ts and
 * cache/snapshot.ts), and its snapshot equals a full compile's.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Diagnostic } from '../compiler/diagnostics.js';
import type { Resource } from '../compiler/validate/validate.js';
import { Compiler, type CompileResult } from '../compiler/pipeline.js';
import { DEFAULT_PROXY_NAME } from '../compiler/resolve/gateways.js';
import { emptyXdsSet, type CompileOptions } from '../compiler/translate/output.js';
import { SnapshotCache } from './cache/cache.js';
import { CompileLog } from './compile-log.js';
import { SnapshotEncoder, type Snapshot } from './cache/snapshot.js';
import { FileSource, type InputSource } from './source.js';

export interface ControlPlaneOptions {
  /** The resource files and directories, when `source` is not given. */
  paths?: string[];
  /** Where the resources come from (a cluster: kube/source.ts); default: the files of `paths`. */
  source?: InputSource;
  compileOptions: CompileOptions;
  logger: Logger;
  /** Quiet period that ends a burst of file events (default: watch.ts's). */
  debounceMs?: number;
}

export type CompileOutcome =
  | { ok: true; version: string; generation: number; changed: boolean; durationMs: number }
  | { ok: false; diagnostics: Diagnostic[]; durationMs: number };

export interface ControlPlaneEvents {
  /** After every compile run. */
  compiled: [CompileOutcome];
}

export class ControlPlane extends EventEmitter<ControlPlaneEvents> {
  readonly cache = new SnapshotCache();
  /** Errors of the latest run; empty when it succeeded. */
  errors: Diagnostic[] = [];
  /** Everything the latest run said: its warnings, or its errors. */
  diagnostics: Diagnostic[] = [];
  /** The input resources of the latest run that got as far as naming them. */
  inputs: readonly Resource[] = [];
  /** Number of snapshots with new content so far (the first is 1). */
  generation = 0;
  snapshotAt: Date | undefined;
  lastCompile: { ok: boolean; at: Date; durationMs: number } | undefined;
  private readonly source: InputSource;
  private readonly compiler: Compiler;
  private readonly encoder = new SnapshotEncoder();
  /** Per proxy of a fleet: its own encoder, whose last snapshot is that proxy's. */
  private encoders = new Map<string, SnapshotEncoder>();
  /** Of everything served: the shared snapshot's and each proxy's (fleetVersion). */
  version: string | undefined;
  private readonly log: CompileLog;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(options: ControlPlaneOptions) {
    super();
    this.compiler = new Compiler(options.compileOptions);
    this.source = options.source ?? new FileSource(options.paths ?? [], options.debounceMs);
    this.log = new CompileLog(options.logger);
  }

  /** The snapshot an Envoy that names no proxy gets (gateway-proxy's, with a fleet). */
  get snapshot(): Snapshot | undefined {
    return this.cache.snapshotFor(DEFAULT_PROXY_NAME);
  }

  /**
   * Without Gateways, one snapshot for every node. With them, one per proxy,
   * and a shared one with the sidecars' types only, for nodes of no proxy a
   * Gateway names (the sidecars among them).
   */
  private snapshots(result: CompileResult): { shared: Snapshot; proxies: Map<string, Snapshot> } {
    if (!result.proxies) return { shared: this.encoder.build(result.xds!), proxies: new Map() };
    const encoders = new Map<string, SnapshotEncoder>();
    const proxies = new Map<string, Snapshot>();
    for (const [proxy, set] of result.proxies) {
      const encoder = this.encoders.get(proxy) ?? new SnapshotEncoder();
      encoders.set(proxy, encoder);
      proxies.set(proxy, encoder.build(set));
    }
    this.encoders = encoders;
    const any = result.proxies.values().next().value!;
    return {
      shared: this.encoder.build({
        ...emptyXdsSet(),
        authConfigs: any.authConfigs,
        graphqlApis: any.graphqlApis,
        rateLimitDomains: any.rateLimitDomains,
      }),
      proxies,
    };
  }

  get ready(): boolean {
    return this.snapshot !== undefined;
  }

  /** Watch, and once the source holds a complete view, the first compile (its failure leaves the server running, not ready). */
  async start(): Promise<CompileOutcome> {
    await this.source.start(() => void this.recompile());
    return this.compileOnce();
  }

  /** Compiles again; calls during a run coalesce into one more run after it. */
  recompile(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.compileOnce();
      } while (this.again && !this.closed);
      this.running = undefined;
    })();
    return this.running;
  }

  close(): void {
    this.closed = true;
    this.source.close();
  }

  private async compileOnce(): Promise<CompileOutcome> {
    const started = performance.now();
    let outcome: CompileOutcome;
    try {
      const result = await this.source.compile(this.compiler);
      // The endpoint-only fast path lists no resources: the last full compile's list stands.
      if (result.resources) this.inputs = result.resources;
      if (!result.xds && !result.proxies) throw new CompileFailed(result.diagnostics);
      this.log.diagnostics('warn', result.diagnostics);
      const before = { shared: this.cache.current, proxies: new Map(this.cache.proxies) };
      const { shared, proxies } = this.snapshots(result);
      const version = fleetVersion(shared, proxies);
      const changed = version !== this.version;
      if (changed) {
        this.generation++;
        this.snapshotAt = new Date();
        this.version = version;
        this.cache.setSnapshots(shared, proxies);
      }
      this.errors = [];
      this.diagnostics = result.diagnostics;
      outcome = { ok: true, version, generation: this.generation, changed, durationMs: performance.now() - started };
      this.log.succeeded(version, this.generation, changed);
      if (!changed) this.log.unchanged(version, outcome.durationMs);
      else if (proxies.size === 0) this.log.snapshot(before.shared, shared, this.generation, outcome.durationMs);
      else
        for (const [proxy, snapshot] of proxies)
          if (snapshot.version !== before.proxies.get(proxy)?.version)
            this.log.snapshot(before.proxies.get(proxy), snapshot, this.generation, outcome.durationMs, proxy);
      this.log.diagnostics('error', []);
    } catch (err) {
      const diagnostics =
        err instanceof CompileFailed
          ? err.diagnostics
          : [{ stage: 'load' as const, message: `compile failed: ${(err as Error).message}` }];
      this.errors = diagnostics;
      this.diagnostics = diagnostics;
      outcome = { ok: false, diagnostics, durationMs: performance.now() - started };
      this.log.diagnostics('error', diagnostics);
      this.log.failed(diagnostics.length, this.version);
    }
    this.lastCompile = { ok: outcome.ok, at: new Date(), durationMs: outcome.durationMs };
    this.emit('compiled', outcome);
    return outcome;
  }
}

/** One version for everything served: the shared snapshot's alone without a fleet, else with each proxy's. */
function fleetVersion(shared: Snapshot, proxies: ReadonlyMap<string, Snapshot>): string {
  if (proxies.size === 0) return shared.version;
  return createHash('sha256')
    .update([shared.version, ...[...proxies].map(([p, s]) => `${p}=${s.version}`)].join('\n'))
    .digest('hex')
    .slice(0, 16);
}

class CompileFailed extends Error {
  constructor(readonly diagnostics: Diagnostic[]) {
    super(`${diagnostics.length} errors`);
  }
}
