/**
 * `sluice check` (Gloo's `glooctl check`): asks a running serve's /status and
 * the sidecars' /readyz, prints one line per problem and exits 1 on any.
 * The problems serve's state shows are listed by control-plane/status/problems.ts.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { problemsOf, type Problem, type StatusDocument } from '../../control-plane/status/problems.js';

interface CheckFlags {
  admin: string;
  extauthAdmin: string;
  graphqlAdmin: string;
  ratelimitAdmin: string;
  staleAfter: number;
  /** How long one HTTP question may take, in seconds: a serve or sidecar that does not answer by then is reported. */
  timeout: number;
  output: 'text' | 'json';
}

interface SidecarCheck {
  name: string;
  url: string;
  ready: boolean;
  /** /readyz's status text, or why it could not be asked. */
  detail: string;
}

type Answer = { status: number; json: unknown } | { error: string };

async function ask(url: string, timeoutSeconds: number): Promise<Answer> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutSeconds * 1000) });
    const text = await res.text();
    try {
      return { status: res.status, json: JSON.parse(text) };
    } catch {
      return { error: `HTTP ${res.status}, not JSON: ${text.slice(0, 200)}` };
    }
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return { error: cause ?? (err as Error).message };
  }
}

const base = (url: string) => url.replace(/\/+$/, '');

async function checkSidecar(name: string, url: string, timeoutSeconds: number): Promise<SidecarCheck> {
  const answer = await ask(`${base(url)}/readyz`, timeoutSeconds);
  if ('error' in answer) return { name, url, ready: false, detail: `unreachable: ${answer.error}` };
  const status = (answer.json as { status?: unknown }).status;
  return {
    name,
    url,
    ready: answer.status === 200,
    detail: typeof status === 'string' ? status : `HTTP ${answer.status}`,
  };
}

export interface CheckReport {
  serve: string;
  ok: boolean;
  problems: Problem[];
  sidecars: SidecarCheck[];
}

export async function runCheck(flags: CheckFlags): Promise<CheckReport> {
  const sidecarUrls = (
    [
      ['sluice-extauth', flags.extauthAdmin],
      ['sluice-graphql', flags.graphqlAdmin],
      ['sluice-ratelimit', flags.ratelimitAdmin],
    ] as const
  ).filter(([, url]) => url !== 'none');
  const [status, ...sidecars] = await Promise.all([
    ask(`${base(flags.admin)}/status`, flags.timeout),
    ...sidecarUrls.map(([name, url]) => checkSidecar(name, url, flags.timeout)),
  ]);
  const problems: Problem[] = [];
  if ('error' in status)
    problems.push({
      kind: 'not-ready',
      message: `serve's admin port ${flags.admin} does not answer /status (${status.error}): is sluice serve running there? (--admin)`,
    });
  else problems.push(...problemsOf(status.json as StatusDocument, flags.staleAfter));
  const sidecarChecks = sidecars as SidecarCheck[];
  for (const s of sidecarChecks)
    if (!s.ready)
      problems.push({
        kind: 'sidecar',
        message: `${s.name} at ${s.url} is not ready: ${s.detail}`,
      });
  return { serve: flags.admin, ok: problems.length === 0, problems, sidecars: sidecarChecks };
}

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('give a number of seconds');
  return n;
}

export function register(program: Command): void {
  program
    .command('check')
    .description(
      'ask a running `sluice serve` and its sidecars for problems (NACKs, proxies without an Envoy, rejected resources, sidecars not ready, Envoys on an old version); one line each, exit 1 on any',
    )
    .option('--admin <url>', "serve's admin port", 'http://127.0.0.1:9901')
    .option('--extauth-admin <url>', "sluice-extauth's admin port ('none': do not ask)", 'http://127.0.0.1:8093')
    .option('--graphql-admin <url>', "sluice-graphql's admin port ('none': do not ask)", 'http://127.0.0.1:8094')
    .option('--ratelimit-admin <url>', "sluice-ratelimit's admin port ('none': do not ask)", 'http://127.0.0.1:8095')
    .option(
      '--stale-after <seconds>',
      'an Envoy or sidecar behind the served version for longer is a problem',
      seconds,
      30,
    )
    .option(
      '--timeout <seconds>',
      'how long serve and each sidecar may take to answer',
      (value: string) => {
        const n = seconds(value);
        if (n === 0) throw new InvalidArgumentError('give a number of seconds above 0');
        return n;
      },
      5,
    )
    .addOption(
      new Option('--output <format>', 'text: one line per problem; json: the report')
        .choices(['text', 'json'])
        .default('text'),
    )
    .action(async (flags: CheckFlags) => {
      const report = await runCheck(flags);
      if (flags.output === 'json') process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      else if (report.ok)
        process.stdout.write(
          `ok: serve at ${flags.admin}${report.sidecars.length ? ` and ${report.sidecars.map((s) => s.name).join(', ')}` : ''} report no problem\n`,
        );
      else for (const p of report.problems) process.stdout.write(`${p.kind}: ${p.message}\n`);
      process.exitCode = report.ok ? 0 : 1;
    });
}
