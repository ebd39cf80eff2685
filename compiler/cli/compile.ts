/** `sluice compile` and `sluice validate`. */
import { Option, type Command } from 'commander';
import { isError, renderDiagnostics, type Diagnostic } from '../diagnostics.js';
import { staticBootstrap } from '../emit/bootstrap.js';
import { renderOutput, writeFiles, type OutputFormat } from '../emit/write.js';
import { compileFiles } from '../pipeline.js';
import { verifyBootstrap } from '../verify/verify.js';
import { addCompileOptions, compileOptionsFrom, type CompileFlags } from './options.js';

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

async function run(flags: CompileFlags & { output?: string; format: OutputFormat }, write: boolean): Promise<number> {
  const options = compileOptionsFrom(flags);
  const result = await compileFiles(flags.filename, options);
  if (!result.output) {
    reportDiagnostics(result.diagnostics);
    return 1;
  }
  // Warnings: the compile succeeded, but something is likely not what the user meant.
  reportDiagnostics(result.diagnostics, false);
  const bootstrap = staticBootstrap(result.output, options);
  const bootstrapErrors = verifyBootstrap(bootstrap);
  if (bootstrapErrors.length > 0) {
    reportDiagnostics(bootstrapErrors);
    return 1;
  }
  const virtualHosts = result.output.routes[0]?.virtual_hosts ? (result.output.routes[0].virtual_hosts as unknown[]).length : 0;
  const counts = [
    plural(virtualHosts, 'virtual host'),
    plural(result.output.clusters.length, 'cluster'),
    plural(result.output.authConfigs.length, 'auth config'),
    plural(result.output.graphqlApis.length, 'GraphQL API'),
  ].join(', ');
  if (!write) {
    process.stderr.write(`valid: ${counts}\n`);
    return 0;
  }
  const files = renderOutput(bootstrap, result.output.authConfigs, result.output.graphqlApis, flags.format);
  if (!flags.output) {
    process.stdout.write(files[`envoy.${flags.format}`]);
    return 0;
  }
  let written: string[];
  try {
    // One bootstrap per directory: the other format's file would be a stale copy.
    written = await writeFiles(flags.output, files, [`envoy.${flags.format === 'yaml' ? 'json' : 'yaml'}`]);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    process.stderr.write(`${e.path ?? flags.output}: error[emit]: cannot write the output: ${e.code ?? e.message} — give -o a directory this user can create and write\n`);
    return 1;
  }
  process.stderr.write(`compiled ${counts}\nwrote ${written.join(', ')}\n`);
  return 0;
}

export function register(program: Command): void {
  addCompileOptions(
    program
      .command('compile')
      .description('compile resources into a static Envoy bootstrap (and the sidecar configs with -o)')
      .option('-o, --output <dir>', 'write envoy.yaml (envoy.json with --format json; the other one is removed), extauth.json and graphql.json into DIR (default: print the bootstrap)')
      .addOption(new Option('--format <format>', 'bootstrap format').choices(['yaml', 'json']).default('yaml')),
  ).action(async (flags) => {
    process.exitCode = await run(flags, true);
  });

  addCompileOptions(program.command('validate').description('load, validate, resolve, translate and verify; write nothing')).action(async (flags) => {
    process.exitCode = await run({ ...flags, format: 'yaml' }, false);
  });
}
