/**
 * What every input must get from the compiler: exit 0 with an output that
 * passes the verifier, or a bounded list of errors that each name a file.
 * Never a thrown exception, never an "internal compiler error".
 */
import { isError, REPORT_LIMIT, renderDiagnostics } from '../../compiler/diagnostics.js';
import { staticBootstrap } from '../../compiler/emit/bootstrap.js';
import { renderOutput, textOf } from '../../compiler/emit/write.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { verifyBootstrap } from '../../compiler/verify/verify.js';

export type Problem =
  'crash' | 'error without a file' | 'verifier refusal' | 'unbounded report' | 'failed without an error';

export interface Finding {
  problem: Problem;
  /** What went wrong, short enough to group findings by. */
  detail: string;
}

/** The longest line a printed diagnostic may have (the parts are capped in formatDiagnostic). */
const MAX_LINE = 2500;

export type Outcome = { ok: true } | { ok: false; errors: number; findings: Finding[] };

function crash(err: unknown): Finding {
  const e = err as Error;
  // The first frame in sluice's own code locates the bug.
  const frame =
    (e.stack ?? '')
      .split('\n')
      .find((l) => /\/(compiler|protos)\//.test(l))
      ?.trim() ?? '';
  return { problem: 'crash', detail: `${e.name}: ${String(e.message).slice(0, 120)} ${frame}` };
}

export async function checkInput(dir: string): Promise<{ ok: boolean; findings: Finding[] }> {
  let result;
  try {
    result = await compileFiles([dir], DEFAULT_OPTIONS);
  } catch (err) {
    return { ok: false, findings: [crash(err)] };
  }
  const findings: Finding[] = [];
  // A fleet's Gateways give a set per proxy: each is one Envoy's bootstrap.
  const sets = result.xds ? [result.xds] : [...(result.proxies?.values() ?? [])];
  if (sets.length > 0) {
    for (const set of sets) {
      try {
        const bootstrap = staticBootstrap(set, DEFAULT_OPTIONS);
        for (const d of verifyBootstrap(bootstrap))
          findings.push({ problem: 'verifier refusal', detail: `${d.field ?? ''}: ${d.message}`.slice(0, 200) });
        // The files are made as they are read.
        for (const format of ['yaml', 'json'] as const)
          for (const text of Object.values(renderOutput(set, DEFAULT_OPTIONS, format))) textOf(text);
      } catch (err) {
        findings.push(crash(err));
      }
    }
    return { ok: true, findings };
  }
  const errors = result.diagnostics.filter(isError);
  if (errors.length === 0)
    findings.push({ problem: 'failed without an error', detail: `${result.diagnostics.length} warnings` });
  for (const d of errors) {
    if (d.stage === 'verify' || d.message.includes('internal compiler error'))
      findings.push({
        problem: 'verifier refusal',
        detail: `${d.resource ?? ''} ${d.field ?? ''}: ${d.message}`.slice(0, 200),
      });
    else if (!d.file)
      findings.push({
        problem: 'error without a file',
        detail: `${d.stage} ${d.resource ?? ''} ${d.field ?? ''}: ${d.message}`.slice(0, 200),
      });
  }
  let lines: string[] = [];
  try {
    lines = renderDiagnostics(result.diagnostics);
  } catch (err) {
    findings.push(crash(err));
  }
  const long = lines.find((l) => l.length > MAX_LINE || l.includes('\n'));
  if (lines.length > REPORT_LIMIT + 1 || long)
    findings.push({
      problem: 'unbounded report',
      detail: `${lines.length} lines; ${long ? `a line of ${long.length} characters: ${long.slice(0, 120)}` : ''}`,
    });
  return { ok: false, findings };
}
