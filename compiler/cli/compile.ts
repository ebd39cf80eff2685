/** `sluice compile` and `sluice validate`. */
import { Option, type Command } from 'commander';
import { isError, renderDiagnostics, type Diagnostic } from '../diagnostics.js';
import { envoyproxyGaps } from '../emit/ratelimit.js';
import { renderOutput, textOf, writeFiles, type OutputFormat } from '../emit/write.js';
import { dumpIr } from '../ir/dump.js';
import { compileFiles, type CompileResult } from '../pipeline.js';
import type { XdsSet } from '../translate/output.js';
import { addCompileOptions, compileOptionsFrom, proxyOption, type CompileFlags } from './options.js';

export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Prints the diagnostics (a bounded number of them) to stderr; a failed run ends with its error count. */
export function reportDiagnostics(diagnostics: Diagnostic[], failed = true): void {
  const lines = renderDiagnostics(diagnostics);
  if (failed) {
    const errors = diagnostics.filter(isError).length;
    lines.push(`${errors} error${errors === 1 ? '' : 's'}; nothing was written`);
  }
  if (lines.length > 0) process.stderr.write(`${lines.join('\n')}\n`);
}

/**
 * The set of one Envoy: with Gateways that name several proxies, `--proxy`
 * chooses; without it that is an error. Reports the diagnostics of a failed
 * compile; undefined then.
 */
export function chosenSet(result: CompileResult): XdsSet | undefined {
  if (result.xds) return result.xds;
  const proxies = [...(result.proxies?.keys() ?? [])];
  const choose: Diagnostic[] =
    proxies.length > 0
      ? [
          {
            stage: 'resolve',
            message: `the Gateways name ${proxies.length} proxies (${proxies.join(', ')}), and each Envoy of a fleet gets its own configuration`,
            hint: 'choose one with --proxy NAME',
          },
        ]
      : [];
  reportDiagnostics([...result.diagnostics, ...choose]);
  return undefined;
}

async function run(
  flags: CompileFlags & { output?: string; format: OutputFormat; dumpIr?: boolean },
  write: boolean,
): Promise<number> {
  const options = compileOptionsFrom(flags);
  const result = await compileFiles(flags.filename, options);
  if (!result.ir || (write && !flags.dumpIr && !result.xds)) {
    chosenSet(result);
    return 1;
  }
  // Warnings: the compile succeeded, but something is likely not what the user meant.
  reportDiagnostics(result.diagnostics, false);
  if (flags.dumpIr) {
    process.stdout.write(dumpIr(result.ir));
    return 0;
  }
  const sets = result.xds ? [result.xds] : [...result.proxies!.values()];
  const count = (kind: 'clusters' | 'authConfigs' | 'graphqlApis') =>
    new Set(sets.flatMap((s) => [...s[kind].keys()])).size;
  const counts = [
    plural(result.ir.virtualHosts.length, 'virtual host'),
    plural(count('clusters'), 'cluster'),
    plural(count('authConfigs'), 'auth config'),
    plural(count('graphqlApis'), 'GraphQL API'),
    ...(result.proxies && !options.proxy ? [`for the proxies ${[...result.proxies.keys()].join(', ')}`] : []),
  ].join(', ');
  if (!write) {
    process.stderr.write(`valid: ${counts}\n`);
    return 0;
  }
  const files = renderOutput(result.xds!, options, flags.format);
  if (!flags.output) {
    process.stdout.write(textOf(files[`envoy.${flags.format}`]!));
    return 0;
  }
  let written: string[];
  try {
    // One bootstrap per directory: the other format's file would be a stale copy.
    written = await writeFiles(flags.output, files, [`envoy.${flags.format === 'yaml' ? 'json' : 'yaml'}`]);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    process.stderr.write(
      `${e.path ?? flags.output}: error[emit]: cannot write the output: ${e.code ?? e.message} — give -o a directory this user can create and write\n`,
    );
    return 1;
  }
  process.stderr.write(`compiled ${counts}\nwrote ${written.join(', ')}\n`);
  for (const gap of envoyproxyGaps(result.xds!)) process.stderr.write(`warning[emit]: ${gap}\n`);
  return 0;
}

export function register(program: Command): void {
  addCompileOptions(
    program
      .command('compile')
      .description('compile resources into a static Envoy bootstrap (and the sidecar configs with -o)')
      .option(
        '-o, --output <dir>',
        'write envoy.yaml (envoy.json with --format json; the other one is removed), extauth.json, graphql.json and, with global rate limits, ratelimit.json and envoyproxy-ratelimit.<domain>.yaml into DIR (default: print the bootstrap)',
      )
      .addOption(new Option('--format <format>', 'bootstrap format').choices(['yaml', 'json']).default('yaml'))
      .option(
        '--dump-ir',
        'print the IR (the resolved resources, before Envoy) as YAML instead, for debugging; secrets redacted',
      )
      .addOption(proxyOption('write')),
  ).action(async (flags) => {
    process.exitCode = await run(flags, true);
  });

  addCompileOptions(
    program.command('validate').description('load, validate, resolve, translate and verify; write nothing'),
  ).action(async (flags) => {
    process.exitCode = await run({ ...flags, format: 'yaml' }, false);
  });
}
