/** `sluice explain`: what the gateway will answer to one request, and why. */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { fromCompileResult, type GatewayConfig } from '../explain/config.js';
import { explain } from '../explain/explain.js';
import type { ExplainRequest } from '../explain/model.js';
import { renderText } from '../explain/render.js';
import { credentialHeaders } from '../explain/request.js';
import { compileFiles } from '../pipeline.js';
import { chosenSet, reportDiagnostics } from './compile.js';
import { addCompileOptions, collect, compileOptionsFrom, proxyOption, type CompileFlags } from './options.js';

/** Compiles the resources as `compile` does; undefined (errors reported) when they do not compile. */
export async function compileGateway(flags: CompileFlags): Promise<GatewayConfig | undefined> {
  const result = await compileFiles(flags.filename, compileOptionsFrom(flags));
  if (!chosenSet(result)) return undefined;
  reportDiagnostics(result.diagnostics, false);
  return fromCompileResult(result);
}

function parseHeader(value: string, previous: [string, string][]): [string, string][] {
  const colon = value.indexOf(':');
  if (colon <= 0) throw new InvalidArgumentError(`"${value}" is not a header: write it as 'Name: value'`);
  return [...previous, [value.slice(0, colon).trim(), value.slice(colon + 1).trim()]];
}

function parseUser(value: string): string {
  if (!value.includes(':')) throw new InvalidArgumentError('write it as NAME:PASSWORD');
  return value;
}

export function parseClaims(value: string): Record<string, unknown> {
  let claims: unknown;
  try {
    claims = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError(`not JSON: write the claims as an object, e.g. '{"role":"reader"}'`);
  }
  if (!claims || typeof claims !== 'object' || Array.isArray(claims))
    throw new InvalidArgumentError(`write the claims as a JSON object, e.g. '{"role":"reader"}'`);
  return claims as Record<string, unknown>;
}

function parseLdapAddress(value: string): string {
  if (!/^ldaps?:\/\/[^/\s]+\/?$/.test(value))
    throw new InvalidArgumentError('write it as ldap://HOST:PORT or ldaps://HOST:PORT');
  return value;
}

/** The flags that let explain and test ask LDAP directories. */
export interface LdapFlags {
  ldap?: boolean;
  ldapAddress?: string;
}

/** `--ldap` and `--ldap-address`, shared by explain and test. */
export function addLdapOptions(command: Command, ldapHelp: string): Command {
  return command
    .option('--ldap', ldapHelp)
    .addOption(
      new Option(
        '--ldap-address <url>',
        'ask the directory at URL instead of the address each AuthConfig names; implies --ldap (ldap://127.0.0.1:3389: the example directory npm start and scripts/dev-slapd.sh run)',
      ).argParser(parseLdapAddress),
    );
}

/** The explain options the LDAP flags give. */
export function ldapOptions(flags: LdapFlags): { ldap: boolean; ldapAddress?: string } {
  return {
    ldap: !!flags.ldap || flags.ldapAddress !== undefined,
    ...(flags.ldapAddress ? { ldapAddress: flags.ldapAddress } : {}),
  };
}

interface ExplainFlags extends CompileFlags, LdapFlags {
  header: [string, string][];
  user?: string;
  jwt?: string;
  claims?: Record<string, unknown>;
  claimsProvider?: string;
  output: 'text' | 'json';
  fetchJwks?: boolean;
}

export function register(program: Command): void {
  const command = program
    .command('explain')
    .description('what the gateway answers to one request, step by step, from the compiled configuration')
    .argument('<method>', 'HTTP method, e.g. GET')
    .argument('<url>', 'the URL as the client calls it, e.g. http://petstore.example.com/api/pets')
    .option('-H, --header <header>', "a request header 'Name: value' (repeatable)", parseHeader, [])
    .option('--user <name:password>', 'HTTP Basic credentials (for LDAP hosts)', parseUser)
    .option('--jwt <token>', 'a bearer token, verified as Envoy would')
    .option(
      '--claims <json>',
      "claims of a token taken as valid for the host's provider, instead of --jwt",
      parseClaims,
    )
    .option(
      '--claims-provider <name>',
      "with --claims: the provider (its name in options.jwt) that accepted the token; default: the host's first",
    )
    .addOption(proxyOption('explain'))
    .option('--fetch-jwks', 'fetch remote JWKS to check signatures (otherwise the signature is an assumption)');
  addLdapOptions(command, 'ask the LDAP directories of AuthConfigs (otherwise their answer is an assumption)');
  command.addOption(new Option('--output <format>', 'output format').choices(['text', 'json']).default('text'));
  addCompileOptions(command).action(async (method: string, url: string, flags: ExplainFlags) => {
    if (flags.claimsProvider && !flags.claims) {
      process.stderr.write('error: --claims-provider goes with --claims\n');
      process.exitCode = 2;
      return;
    }
    if (flags.jwt && flags.claims) {
      process.stderr.write('error: give --jwt or --claims, not both\n');
      process.exitCode = 2;
      return;
    }
    const config = await compileGateway(flags);
    if (!config) {
      process.exitCode = 1;
      return;
    }
    const request: ExplainRequest = {
      method,
      url,
      headers: [...credentialHeaders(flags.user, flags.jwt), ...flags.header],
      ...(flags.claims ? { claims: flags.claims } : {}),
      ...(flags.claimsProvider ? { claimsProvider: flags.claimsProvider } : {}),
    };
    try {
      const e = await explain(config, request, {
        proxy: flags.proxy,
        fetchJwks: flags.fetchJwks,
        ...ldapOptions(flags),
      });
      process.stdout.write(flags.output === 'json' ? `${JSON.stringify(e, null, 2)}\n` : renderText(e));
    } catch (err) {
      process.stderr.write(`error[explain]: ${(err as Error).message}\n`);
      process.exitCode = 1;
    }
  });
}
