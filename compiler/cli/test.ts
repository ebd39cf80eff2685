/** `sluice test`: run the RequestTest tables among the resources; exit 1 on any failing case. */
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { loadRequestTests, renderJunit, renderTable, runRequestTests } from '../explain/request-test.js';
import { addLdapOptions, compileGateway, ldapOptions, type LdapFlags } from './explain.js';
import { addCompileOptions, proxyOption, type CompileFlags } from './options.js';

interface TestFlags extends CompileFlags, LdapFlags {
  junit?: string;
  fetchJwks?: boolean;
}

export function register(program: Command): void {
  const command = program
    .command('test')
    .description(
      'run the RequestTest cases (test.gateway.example/v1) among the resources through `explain`; exit 1 on any failure',
    )
    .option('--junit <file>', 'also write a JUnit XML report to FILE')
    .option('--fetch-jwks', 'fetch remote JWKS to check signatures');
  addLdapOptions(command, 'ask the LDAP directories of AuthConfigs');
  addCompileOptions(command.addOption(proxyOption('test'))).action(async (flags: TestFlags) => {
    const config = await compileGateway(flags);
    if (!config) {
      process.exitCode = 1;
      return;
    }
    const tests = await loadRequestTests(flags.filename);
    if (tests.length === 0) {
      process.stderr.write(
        `error[test]: no RequestTest documents (apiVersion test.gateway.example/v1) in ${flags.filename.join(', ')}: add a file of them with -f\n`,
      );
      process.exitCode = 1;
      return;
    }
    const results = await runRequestTests(config, tests, { fetchJwks: flags.fetchJwks, ...ldapOptions(flags) });
    process.stdout.write(renderTable(results));
    if (flags.junit) {
      try {
        await writeFile(flags.junit, renderJunit(results));
      } catch (err) {
        process.stderr.write(
          `${flags.junit}: error[test]: cannot write the JUnit report: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`,
        );
        process.exitCode = 1;
        return;
      }
    }
    process.exitCode = results.some((r) => r.result === 'fail') ? 1 : 0;
  });
}
