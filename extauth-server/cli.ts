/** Command line of `sluice-extauth`. */
import { Command, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { integerUpTo, logFormatOption, portArg, type LogFormat } from '../runtime/binary.js';
import { VERSION } from '../runtime/version.js';
import { DEFAULT_POOL, MAX_POOL_SIZE, MAX_TIMEOUT_MS } from './config.js';
import type { ExtauthOptions } from './server.js';

/** The server's options, and the format of its log (--log-format). */
export function parseArgs(argv: string[]): ExtauthOptions & { logFormat?: LogFormat } {
  const program = new Command('sluice-extauth')
    .version(VERSION, '-V, --version', 'print the version')
    .description('LDAP authentication for Envoy (envoy.service.auth.v3.Authorization/Check)')
    .option('--port <port>', 'Check gRPC port', portArg, 8083)
    .option('--admin-port <port>', 'admin HTTP port (/healthz, /readyz, /metrics)', portArg, 8093)
    .option('--bind <host>', 'address both ports bind to (0.0.0.0 to serve other hosts or containers)', '127.0.0.1')
    // The flag's name before every binary took --bind.
    .addOption(new Option('--host <address>', 'deprecated: use --bind').hideHelp())
    .option(
      '--config <file>',
      'AuthConfigSet JSON written by `sluice compile -o DIR` (DIR/extauth.json); watched for changes',
    )
    .option('--xds <host:port>', 'xDS server (`sluice serve`) to get AuthConfigs from')
    .option('--node-id <id>', 'xDS node id', 'sluice-extauth')
    .option(
      '--ldap-pool-initial <n>',
      'LDAP connections opened per server at start',
      integerUpTo(MAX_POOL_SIZE),
      DEFAULT_POOL.initialSize,
    )
    .option(
      '--ldap-pool-max <n>',
      'LDAP connections per server at most',
      integerUpTo(MAX_POOL_SIZE),
      DEFAULT_POOL.maxSize,
    )
    .option(
      '--ldap-connect-timeout-ms <ms>',
      'LDAP connect timeout',
      integerUpTo(MAX_TIMEOUT_MS),
      DEFAULT_POOL.connectTimeoutMs,
    )
    .option(
      '--ldap-timeout-ms <ms>',
      'LDAP operation timeout',
      integerUpTo(MAX_TIMEOUT_MS),
      DEFAULT_POOL.operationTimeoutMs,
    )
    .option('--ldap-ca <file>', 'PEM CA bundle trusted for ldaps:// servers (default: the system CAs)')
    .option(
      '--otlp-endpoint <url>',
      'send traces over OTLP/HTTP to <url>/v1/traces (default: OTEL_EXPORTER_OTLP_ENDPOINT; none: off)',
    )
    .addOption(logFormatOption())
    .exitOverride()
    .parse(argv, { from: 'user' });
  const o = program.opts<{
    port: number;
    adminPort: number;
    bind: string;
    host?: string;
    config?: string;
    xds?: string;
    nodeId: string;
    ldapPoolInitial: number;
    ldapPoolMax: number;
    ldapConnectTimeoutMs: number;
    ldapTimeoutMs: number;
    ldapCa?: string;
    otlpEndpoint?: string;
    logFormat?: LogFormat;
  }>();
  if (!!o.config === !!o.xds) program.error('give exactly one of --config FILE and --xds HOST:PORT');
  if (o.host !== undefined) console.error('sluice-extauth: --host is deprecated; use --bind (the same address)');
  return {
    port: o.port,
    adminPort: o.adminPort,
    host: o.host ?? o.bind,
    ...(o.config ? { config: o.config } : { xds: o.xds }),
    nodeId: o.nodeId,
    poolDefaults: {
      initialSize: Math.min(o.ldapPoolInitial, o.ldapPoolMax),
      maxSize: o.ldapPoolMax,
      connectTimeoutMs: o.ldapConnectTimeoutMs,
      operationTimeoutMs: o.ldapTimeoutMs,
    },
    ...(o.ldapCa ? { tlsOptions: { ca: readFileSync(o.ldapCa) } } : {}),
    ...(o.otlpEndpoint ? { otlpEndpoint: o.otlpEndpoint } : {}),
    ...(o.logFormat ? { logFormat: o.logFormat } : {}),
  };
}
