/**
 * `sluice test`: the cases of RequestTest documents, each explained with the
 * same evaluator as `sluice explain` and compared with its expectation.
 * A case is `pass`, `fail`, or `unverified` when the answer rests on a check
 * explain could not make offline (the directory without --ldap, remote keys
 * without --fetch-jwks) and the expectation is one of the possible answers.
 */
import { formatPath } from '../diagnostics.js';
import { REQUEST_TEST } from '../kinds/index.js';
import type { RequestTestCase } from '../kinds/request-test.js';
import { listInputFiles } from '../load/files.js';
import { parseBytes, readResourceFile } from '../load/load.js';
import { validateDocuments, type Resource } from '../validate/validate.js';
import type { GatewayConfig } from './config.js';
import { explain } from './explain.js';
import type { ExplainOptions, Explanation, Outcome } from './model.js';
import { renderText } from './render.js';
import { credentialHeaders } from './request.js';

export type TestCase = RequestTestCase;

export interface CaseResult {
  /** `RequestTest namespace/name`, case name or index. */
  test: string;
  name: string;
  /** file:line of the case. */
  where: string;
  result: 'pass' | 'fail' | 'unverified';
  /** What differs from the expectation (fail), or what was assumed (unverified). */
  reasons: string[];
  explanation?: Explanation;
}

/** The RequestTest documents under `paths` (already validated by the compile of the same paths). */
export async function loadRequestTests(paths: string[]): Promise<Resource<{ cases: TestCase[] }>[]> {
  const out: Resource<{ cases: TestCase[] }>[] = [];
  for (const file of (await listInputFiles(paths)).files) {
    const read = await readResourceFile(file);
    if (!('bytes' in read)) continue;
    for (const r of validateDocuments(parseBytes(file, read.bytes).documents).resources) {
      if (r.apiVersion === REQUEST_TEST.apiVersion && r.kind === REQUEST_TEST.kind)
        out.push(r as unknown as Resource<{ cases: TestCase[] }>);
    }
  }
  return out;
}

const sameAnswer = (o: Outcome, e: TestCase['expect']) =>
  (e.status === undefined || o.status === e.status) && (e.body === undefined || (o.body ?? '') === e.body);

function differences(x: Explanation, e: TestCase['expect']): string[] {
  const a = x.answer;
  const out: string[] = [];
  const shown = (o: Outcome) =>
    o.status === 'upstream' ? 'upstream' : `${o.status}${o.body ? ` ${JSON.stringify(o.body)}` : ''}`;
  if (e.status !== undefined && a.status !== e.status)
    out.push(
      `status: expected ${e.status}, got ${shown(a)}${typeof e.status === 'number' && a.status === 'upstream' ? ' (the upstream answers: expect status "upstream")' : ''}`,
    );
  if (e.body !== undefined && (a.body ?? '') !== e.body)
    out.push(
      `body: expected ${JSON.stringify(e.body)}, got ${a.status === 'upstream' ? "the upstream's" : JSON.stringify(a.body ?? '')}`,
    );
  for (const key of ['virtualHost', 'route', 'cluster'] as const) {
    if (e[key] !== undefined && x.matched[key] !== e[key])
      out.push(`${key}: expected ${e[key]}, got ${x.matched[key] ?? 'none'}`);
  }
  return out;
}

export async function runCase(
  config: GatewayConfig,
  c: TestCase,
  options: ExplainOptions,
): Promise<Pick<CaseResult, 'result' | 'reasons' | 'explanation'>> {
  let x: Explanation;
  try {
    x = await explain(
      config,
      {
        method: c.request.method,
        url: c.request.url,
        headers: [...credentialHeaders(c.request.user, c.request.jwt), ...Object.entries(c.request.headers ?? {})],
        ...(c.request.claims ? { claims: c.request.claims } : {}),
      },
      options,
    );
  } catch (err) {
    return { result: 'fail', reasons: [(err as Error).message] };
  }
  const diff = differences(x, c.expect);
  const assumed = x.answer.assumptions;
  if (diff.length === 0)
    return assumed.length
      ? { result: 'unverified', reasons: assumed.map((a) => `assumed: ${a}`), explanation: x }
      : { result: 'pass', reasons: [], explanation: x };
  // A different answer may still be the one given when an assumption fails (a wrong password, a directory down).
  const routing = diff.filter((d) => !d.startsWith('status') && !d.startsWith('body'));
  if (assumed.length && routing.length === 0 && x.answer.otherwise.some((o) => sameAnswer(o, c.expect))) {
    return {
      result: 'unverified',
      reasons: [`possible if an assumption fails: ${assumed.join('; ')}`],
      explanation: x,
    };
  }
  return { result: 'fail', reasons: diff, explanation: x };
}

export async function runRequestTests(
  config: GatewayConfig,
  tests: Resource<{ cases: TestCase[] }>[],
  options: ExplainOptions,
): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const t of tests) {
    for (const [i, c] of t.spec.cases.entries()) {
      const path = ['spec', 'cases', i];
      const r = await runCase(config, c, options);
      results.push({
        test: `${t.kind} ${t.namespace}/${t.name}`,
        name: c.name ?? `${formatPath(path)} ${c.request.method} ${c.request.url}`,
        where: `${t.origin.file}:${t.origin.lineOf(path)}`,
        ...r,
      });
    }
  }
  return results;
}

export function renderTable(results: CaseResult[]): string {
  const lines: string[] = [];
  const mark = { pass: 'PASS', fail: 'FAIL', unverified: 'UNVERIFIED' } as const;
  for (const r of results) {
    lines.push(`${mark[r.result].padEnd(10)}  ${r.name}  (${r.where})`);
    for (const reason of r.reasons) lines.push(`            ${reason}`);
    if (r.result === 'fail' && r.explanation)
      for (const l of renderText(r.explanation).trimEnd().split('\n')) lines.push(`            | ${l}`);
  }
  const count = (k: CaseResult['result']) => results.filter((r) => r.result === k).length;
  lines.push(
    `${results.length} cases: ${count('pass')} passed, ${count('fail')} failed, ${count('unverified')} unverified`,
  );
  return `${lines.join('\n')}\n`;
}

const xml = (s: string) =>
  s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/** JUnit XML: one testsuite per RequestTest, one testcase per case; unverified cases are skipped ones. */
export function renderJunit(results: CaseResult[]): string {
  const suites = new Map<string, CaseResult[]>();
  for (const r of results) suites.set(r.test, [...(suites.get(r.test) ?? []), r]);
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="sluice test" tests="${results.length}" failures="${results.filter((r) => r.result === 'fail').length}">`,
  ];
  for (const [suite, cases] of suites) {
    out.push(
      `  <testsuite name="${xml(suite)}" tests="${cases.length}" failures="${cases.filter((r) => r.result === 'fail').length}" skipped="${cases.filter((r) => r.result === 'unverified').length}">`,
    );
    for (const c of cases) {
      out.push(`    <testcase classname="${xml(suite)}" name="${xml(c.name)}" file="${xml(c.where)}">`);
      if (c.result === 'fail')
        out.push(
          `      <failure message="${xml(c.reasons.join('; '))}">${xml(c.explanation ? renderText(c.explanation) : c.reasons.join('\n'))}</failure>`,
        );
      if (c.result === 'unverified') out.push(`      <skipped message="${xml(c.reasons.join('; '))}"/>`);
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}
