/** Command line of `sluice-extauth`. */
import { Option } from 'commander';
import { readFileSync } from 'node:fs';
import { integerUpTo, type LogFormat } from '../runtime/binary.js';
import { parseSidecarFlags, sidecarCommand } from '../runtime/sidecar-cli.js';
import { DEFAULT_POOL, MAX_POOL_SIZE, MAX_TIMEOUT_MS } from './config.js';
import type { ExtauthOptions } from './server.js';

/** The server's options, and the format of its log (--log-format). */
export function parseArgs(argv: string[]): ExtauthOptions & { logFormat?: LogFormat } {
  const program = sidecarCommand({
    name: 'sluice-extauth',
    description: 'LDAP authentication for Envoy (envoy.service.auth.v3.Authorization/Check)',
    port: { help: 'Check gRPC port', default: 8083 },
    adminPort: 8093,
    config: { set: 'AuthConfigSet', file: 'extauth.json', resources: 'AuthConfigs' },
  })
    // The flag's name before every binary took --bind.
    .addOption(new Option('--host <address>', 'deprecated: use --bind').hideHelp())
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
    );
  const { flags: o, base } = parseSidecarFlags<{
    host?: string;
    ldapPoolInitial: number;
    ldapPoolMax: number;
    ldapConnectTimeoutMs: number;
    ldapTimeoutMs: number;
    ldapCa?: string;
    otlpEndpoint?: string;
  }>(program, argv);
  if (o.host !== undefined) console.error('sluice-extauth: --host is deprecated; use --bind (the same address)');
  return {
    ...base,
    host: o.host ?? base.host,
    poolDefaults: {
      initialSize: Math.min(o.ldapPoolInitial, o.ldapPoolMax),
      maxSize: o.ldapPoolMax,
      connectTimeoutMs: o.ldapConnectTimeoutMs,
      operationTimeoutMs: o.ldapTimeoutMs,
    },
    ...(o.ldapCa ? { tlsOptions: { ca: readFileSync(o.ldapCa) } } : {}),
    ...(o.otlpEndpoint ? { otlpEndpoint: o.otlpEndpoint } : {}),
  };
}
