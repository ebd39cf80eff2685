/**
 * What `sluice serve` logs per compile, so that hundreds of edits make a log
 * of hundreds of lines: one info line per new snapshot (version, counts,
 * what changed, time), the changed names at debug; diagnostics at most
 * REPORT_LIMIT lines (as the CLI prints them), and a report identical to the
 * previous one summarised in one line instead of logged again. The first
 * good compile after failed ones says so at info, with what it pushed (a
 * restored file often compiles to the snapshot still served: nothing new).
 */
import type { Logger } from 'pino';
import { renderDiagnostics, type Diagnostic } from '../compiler/diagnostics.js';
import type { Snapshot } from './cache/snapshot.js';

/** Names per type and kind of change in the debug line. */
const NAMES_LIMIT = 50;

const typeName = (url: string) => url.slice(url.lastIndexOf('.') + 1);

interface Changes {
  added: string[];
  changed: string[];
  removed: string[];
}

/** The last changes found for a snapshot: the log line and the status page ask for the same pair. */
const found = new WeakMap<Snapshot, { before: Snapshot | undefined; changes: Record<string, Changes> }>();

/** Per type (short name): resources added, changed and removed from `before` to `after`. */
export function snapshotChanges(before: Snapshot | undefined, after: Snapshot): Record<string, Changes> {
  const kept = found.get(after);
  if (kept && kept.before === before) return kept.changes;
  const out: Record<string, Changes> = {};
  for (const [url, type] of after.types) {
    // A type whose resources are all unchanged keeps its TypeSnapshot (snapshot.ts): nothing to compare.
    if (before?.type(url) === type) continue;
    const old = before?.type(url)?.resources ?? new Map();
    const c: Changes = { added: [], changed: [], removed: [] };
    for (const [name, r] of type.resources) {
      if (!old.has(name)) c.added.push(name);
      else if (old.get(name)!.version !== r.version) c.changed.push(name);
    }
    for (const name of old.keys()) if (!type.resources.has(name)) c.removed.push(name);
    if (c.added.length || c.changed.length || c.removed.length) out[typeName(url)] = c;
  }
  found.set(after, { before, changes: out });
  return out;
}

export class CompileLog {
  /** The last diagnostics report logged, per level, to summarise an identical one. */
  private readonly last = { warn: '', error: '' };
  /** Failed compiles since the last good one, and when the first of them ended. */
  private failures = 0;
  private brokenSince = 0;

  constructor(private readonly logger: Logger) {}

  /** A compile that failed: the last good snapshot (`serving`, if any) stays. */
  failed(errors: number, serving: string | undefined): void {
    if (this.failures++ === 0) this.brokenSince = performance.now();
    this.logger.error({ errors, serving: serving ?? null }, 'compile failed; keeping the last good snapshot');
  }

  /** A compile that succeeded: after failed ones, one info line saying the configuration compiles again and what was pushed. */
  succeeded(version: string, generation: number, pushed: boolean): void {
    if (this.failures === 0) return;
    const failedCompiles = this.failures;
    this.failures = 0;
    const fields = {
      version,
      generation,
      pushed,
      failedCompiles,
      brokenForMs: Math.round(performance.now() - this.brokenSince),
    };
    const what = pushed
      ? `pushed snapshot ${version} (generation ${generation})`
      : `nothing to push: it compiles to the snapshot served all along (${version})`;
    this.logger.info(
      fields,
      `the configuration compiles again after ${failedCompiles} failed compile${failedCompiles === 1 ? '' : 's'}; ${what}`,
    );
  }

  /** `proxy`: the proxy of a fleet the snapshot is for. */
  snapshot(
    before: Snapshot | undefined,
    after: Snapshot,
    generation: number,
    durationMs: number,
    proxy?: string,
  ): void {
    const changes = snapshotChanges(before, after);
    const counts = Object.fromEntries([...after.types].map(([url, t]) => [typeName(url), t.resources.size]));
    const changed = Object.fromEntries(
      Object.entries(changes).map(([type, c]) => [
        type,
        `+${c.added.length} ~${c.changed.length} -${c.removed.length}`,
      ]),
    );
    this.logger.info(
      {
        ...(proxy !== undefined ? { proxy } : {}),
        version: after.version,
        generation,
        resources: counts,
        changed,
        durationMs: Math.round(durationMs),
      },
      'new snapshot',
    );
    if (this.logger.isLevelEnabled('debug')) {
      const cut = (names: string[]) =>
        names.length > NAMES_LIMIT ? [...names.slice(0, NAMES_LIMIT), `… ${names.length - NAMES_LIMIT} more`] : names;
      const names = Object.fromEntries(
        Object.entries(changes).map(([type, c]) => [
          type,
          { added: cut(c.added), changed: cut(c.changed), removed: cut(c.removed) },
        ]),
      );
      this.logger.debug({ version: after.version, changes: names }, 'snapshot changes');
    }
  }

  unchanged(version: string, durationMs: number): void {
    this.logger.debug({ version, durationMs: Math.round(durationMs) }, 'compiled; no change');
  }

  /** Warnings of a compile that succeeded (level warn) or errors of one that failed (level error). */
  diagnostics(level: 'warn' | 'error', diagnostics: Diagnostic[]): void {
    if (diagnostics.length === 0) {
      this.last[level] = '';
      return;
    }
    const lines = renderDiagnostics(diagnostics);
    const report = lines.join('\n');
    if (report === this.last[level]) {
      const what = `${level === 'error' ? 'error' : 'warning'}${diagnostics.length === 1 ? '' : 's'}`;
      this.logger[level](
        { count: diagnostics.length },
        `the same ${diagnostics.length} ${what} as the previous compile (not repeated; /status lists them)`,
      );
      return;
    }
    this.last[level] = report;
    for (const line of lines) this.logger[level](line);
  }
}
