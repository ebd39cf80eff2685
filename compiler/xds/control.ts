/**
 * The control loop of `sluice serve`: compile the inputs, turn the xDS set
 * into a snapshot, put it in the cache; watch the inputs and do it again. A
 * run with errors changes nothing: the last good snapshot keeps being served
 * and the errors are kept for the admin port and logged.
 *
 * One Compiler and one SnapshotEncoder live as long as the loop, so a run
 * after an edit does only the work the edit calls for (see pipeline.ts and
 * snapshot.ts), and its snapshot equals a full compile's.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Diagnostic } from '../diagnostics.js';
import { Compiler } from '../pipeline.js';
import type { CompileOptions } from '../translate/output.js';
import { SnapshotCache } from './cache.js';
import { CompileLog } from './compile-log.js';
import { SnapshotEncoder, type Snapshot } from './snapshot.js';
import { watchInputs, type Watcher } from './watch.js';

export interface ControlPlaneOptions {
  paths: string[];
  compileOptions: CompileOptions;
  logger: Logger;
  /** Quiet period that ends a burst of file events (default: watch.ts's). */
  debounceMs?: number;
}

export type CompileOutcome =
  | { ok: true; version: string; generation: number; changed: boolean; durationMs: number }
  | { ok: false; diagnostics: Diagnostic[]; durationMs: number };

/** Emits `compiled` (CompileOutcome) after every compile run. */
export class ControlPlane extends EventEmitter {
  readonly cache = new SnapshotCache();
  /** Errors of the latest run; empty when it succeeded. */
  errors: Diagnostic[] = [];
  /** Number of snapshots with new content so far (the first is 1). */
  generation = 0;
  snapshotAt: Date | undefined;
  lastCompile: { ok: boolean; at: Date; durationMs: number } | undefined;
  private watcher: Watcher | undefined;
  private readonly compiler: Compiler;
  private readonly encoder = new SnapshotEncoder();
  private readonly log: CompileLog;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(private readonly options: ControlPlaneOptions) {
    super();
    this.compiler = new Compiler(options.compileOptions);
    this.log = new CompileLog(options.logger);
  }

  get snapshot(): Snapshot | undefined {
    return this.cache.current;
  }

  get ready(): boolean {
    return this.snapshot !== undefined;
  }

  /** First compile (its failure leaves the server running, not ready), then watch. */
  async start(): Promise<CompileOutcome> {
    this.watcher = watchInputs(this.options.paths, () => void this.recompile(), this.options.debounceMs);
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
    this.watcher?.close();
  }

  private async compileOnce(): Promise<CompileOutcome> {
    const started = performance.now();
    let outcome: CompileOutcome;
    try {
      const result = await this.compiler.compile(this.options.paths);
      if (!result.xds) throw new CompileFailed(result.diagnostics);
      this.log.diagnostics('warn', result.diagnostics);
      const snapshot: Snapshot = this.encoder.build(result.xds);
      const changed = snapshot.version !== this.snapshot?.version;
      const previous = this.snapshot;
      if (changed) {
        this.generation++;
        this.snapshotAt = new Date();
        this.cache.setSnapshot(snapshot);
      }
      this.errors = [];
      outcome = { ok: true, version: snapshot.version, generation: this.generation, changed, durationMs: performance.now() - started };
      if (changed) this.log.snapshot(previous, snapshot, this.generation, outcome.durationMs);
      else this.log.unchanged(snapshot.version, outcome.durationMs);
      this.log.diagnostics('error', []);
    } catch (err) {
      const diagnostics = err instanceof CompileFailed ? err.diagnostics : [{ stage: 'load' as const, message: `compile failed: ${(err as Error).message}` }];
      this.errors = diagnostics;
      outcome = { ok: false, diagnostics, durationMs: performance.now() - started };
      this.log.diagnostics('error', diagnostics);
      this.options.logger.error({ errors: diagnostics.length, serving: this.snapshot?.version ?? null }, 'compile failed; keeping the last good snapshot');
    }
    this.lastCompile = { ok: outcome.ok, at: new Date(), durationMs: outcome.durationMs };
    this.emit('compiled', outcome);
    return outcome;
  }
}

class CompileFailed extends Error {
  constructor(readonly diagnostics: Diagnostic[]) {
    super(`${diagnostics.length} errors`);
  }
}
