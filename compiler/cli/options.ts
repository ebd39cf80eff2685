/** Flags shared by every command that compiles (compile, validate, serve). */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { DEFAULT_OPTIONS, type CompileOptions } from '../translate/output.js';
import type { TString } from '@sinclair/typebox';
import { namespaceName, resourceName } from '../kinds/schema.js';

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function parsePort(value: string): number {
  // Digits only: Number() would also take "1e3", "0x50" and " 80".
  const n = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= 65535)) throw new InvalidArgumentError(`"${value}" is not a port (1-65535)`);
  return n;
}

function schemaParser(schema: TString, what: string): (value: string) => string {
  const pattern = new RegExp(schema.pattern!);
  const max = schema.maxLength!;
  return (value) => {
    if (value.length > max || !pattern.test(value)) {
      throw new InvalidArgumentError(
        `"${value}" is not a valid ${what}: use at most ${max} lower-case letters, digits and "-"${what === 'name' ? ' or "."' : ''}, starting and ending with a letter or digit`,
      );
    }
    return value;
  };
}

/** Names and namespaces the validator accepts, so what `sluice create` prints passes `sluice validate`. */
export const parseResourceName = schemaParser(resourceName, 'name');
export const parseNamespace = schemaParser(namespaceName, 'namespace');

export function parseHostPort(value: string): { host: string; port: number } {
  const m = /^(.+):(\d+)$/.exec(value);
  if (!m) throw new InvalidArgumentError(`"${value}" is not HOST:PORT`);
  return { host: m[1].replace(/^\[(.*)\]$/, '$1'), port: parsePort(m[2]) };
}

/** A HOST:PORT flag whose help shows its default as it would be typed (`extauth:8083`). */
function hostPortOption(flags: string, description: string, fallback: { host: string; port: number }): Option {
  return new Option(flags, description).argParser(parseHostPort).default(fallback, `${fallback.host}:${fallback.port}`);
}

/** `filesRequired: false` for a command that can read its resources elsewhere (serve --kube), and checks -f itself. */
export function addCompileOptions(cmd: Command, { filesRequired = true } = {}): Command {
  const d = DEFAULT_OPTIONS;
  const filename = new Option('-f, --filename <path>', 'resource file or directory (repeatable)')
    .argParser(collect)
    .default([])
    .makeOptionMandatory(filesRequired);
  return cmd
    .addOption(filename)
    .option('--listener-address <ip>', 'address the HTTP listener binds', d.listenerAddress)
    .option('--listener-port <port>', 'port of the HTTP listener', parsePort, d.listenerPort)
    .option('--cluster-domain <domain>', 'cluster DNS domain of kube services', d.clusterDomain)
    .option(
      '--namespace <ns>',
      'namespace of discovered Upstreams (the control plane namespace; references into gloo-system find them too)',
      d.controlPlaneNamespace,
    )
    .addOption(
      hostPortOption(
        '--extauth-address <host:port>',
        'address of sluice-extauth as Envoy reaches it',
        d.extauthAddress,
      ),
    )
    .addOption(
      hostPortOption(
        '--graphql-address <host:port>',
        'address of sluice-graphql as Envoy reaches it',
        d.graphqlAddress,
      ),
    )
    .addOption(
      hostPortOption(
        '--ratelimit-address <host:port>',
        'address of sluice-ratelimit as Envoy reaches it',
        d.ratelimitAddress,
      ),
    )
    .option(
      '--envoy-admin-port <port>',
      'admin port of the static bootstrap (bound to 127.0.0.1)',
      parsePort,
      d.adminPort,
    );
}

/** `--proxy`: which proxy of a fleet (a Gateway's proxyNames) a command that writes or explains one Envoy's configuration is about. */
export function proxyOption(what: string): Option {
  return new Option(
    '--proxy <name>',
    `the proxy (a name in Gateway proxyNames) whose configuration to ${what}; needed when the Gateways name several`,
  );
}

export interface CompileFlags {
  filename: string[];
  proxy?: string;
  listenerAddress: string;
  listenerPort: number;
  clusterDomain: string;
  namespace: string;
  extauthAddress: { host: string; port: number };
  graphqlAddress: { host: string; port: number };
  ratelimitAddress: { host: string; port: number };
  envoyAdminPort: number;
}

export function compileOptionsFrom(flags: CompileFlags): CompileOptions {
  return {
    listenerAddress: flags.listenerAddress,
    listenerPort: flags.listenerPort,
    clusterDomain: flags.clusterDomain,
    controlPlaneNamespace: flags.namespace,
    extauthAddress: flags.extauthAddress,
    graphqlAddress: flags.graphqlAddress,
    ratelimitAddress: flags.ratelimitAddress,
    adminPort: flags.envoyAdminPort,
    ...(flags.proxy !== undefined ? { proxy: flags.proxy } : {}),
  };
}
