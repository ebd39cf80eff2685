/** `sluice compile` and `sluice validate`. */
import type { Command } from 'commander';
import { formatDiagnostic, type Diagnostic } from '../diagnostics.js';
import { staticBootstrap } from '../emit/bootstrap.js';
import { renderOutput, writeFiles, type OutputFormat } from '../emit/write.js';
import { compileFiles } from '../pipeline.js';
import { verifyBootstrap } from '../verify/verify.js';
import { addCompileOptions, compileOptionsFrom, type CompileFlags } from './options.js';

export function reportDiagnostics(diagnostics: Diagnostic[]): void {
  for (const d of diagnostics) process.stderr.write(`${formatDiagnostic(d)}\n`);
  process.stderr.write(`${diagnostics.length} error${diagnostics.length === 1 ? '' : 's'}; nothing was written\n`);
}

async function run(flags: CompileFlags & { output?: string; format: OutputFormat }, write: boolean): Promise<number> {
  const options = compileOptionsFrom(flags);
  const result = await compileFiles(flags.filename, options);
  if (!result.output) {
    reportDiagnostics(result.diagnostics);
    return 1;
  }
  const bootstrap = staticBootstrap(result.output, options);
  const bootstrapErrors = verifyBootstrap(bootstrap);
  if (bootstrapErrors.length > 0) {
    reportDiagnostics(bootstrapErrors);
    return 1;
  }
  const counts = `${result.output.routes[0]?.virtual_hosts ? (result.output.routes[0].virtual_hosts as unknown[]).length : 0} virtual hosts, ${result.output.clusters.length} clusters, ${result.output.authConfigs.length} auth configs, ${result.output.graphqlApis.length} GraphQL APIs`;
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
    written = await writeFiles(flags.output, files);
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
      .option('-o, --output <dir>', 'write envoy.yaml, extauth.json and graphql.json into DIR (default: print the bootstrap)')
      .option('--format <format>', 'bootstrap format: yaml or json', 'yaml'),
  ).action(async (flags) => {
    if (flags.format !== 'yaml' && flags.format !== 'json') program.error(`--format must be yaml or json, not "${flags.format}"`, { exitCode: 2 });
    process.exitCode = await run(flags, true);
  });

  addCompileOptions(program.command('validate').description('load, validate, resolve, translate and verify; write nothing')).action(async (flags) => {
    process.exitCode = await run({ ...flags, format: 'yaml' }, false);
  });
}
