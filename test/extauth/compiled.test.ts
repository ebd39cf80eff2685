/**
 * From resources to a decision: `sluice compile` output (DIR/extauth.json and
 * the virtual host's ext_authz config_ref) drives sluice-extauth started with
 * the same command line flags as the binary, against a real slapd.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { authCredentialsSecret } from '../../compiler/cli/create.js';
import type { Json } from '../../compiler/translate/output.js';
import { parseArgs } from '../../extauth-server/cli.js';
import { startExtauth, type RunningExtauth } from '../../extauth-server/server.js';
import { startSlapd, groupDn, USER_DN_TEMPLATE, SERVICE_ACCOUNT, type Slapd } from '../../harness/slapd.js';
import { basic } from '../../harness/extauth-check.js';
import { checker, compileConfig, httpStatus, type Checker } from './helpers.js';
import { testLogger } from '../../harness/log-check.js';

let slapd: Slapd;
let server: RunningExtauth;
let check: Checker;
let configRefs: Record<string, string | undefined>;

function resources(): string {
  const vs = (name: string, options?: Json) => ({
    apiVersion: 'gateway.gateway.example/v1',
    kind: 'VirtualService',
    metadata: { name, namespace: 'default' },
    spec: {
      virtualHost: {
        domains: [`${name}.example.org`],
        routes: [
          {
            matchers: [{ prefix: '/' }],
            routeAction: { single: { kube: { ref: { name: 'pets', namespace: 'default' }, port: 8080 } } },
          },
        ],
        ...(options ? { options } : {}),
      },
    },
  });
  const authConfig = (name: string, groupLookupSettings?: Json) => ({
    apiVersion: 'enterprise.gateway.example/v1',
    kind: 'AuthConfig',
    metadata: { name, namespace: 'default' },
    spec: {
      configs: [
        {
          ldap: {
            address: slapd.url,
            userDnTemplate: USER_DN_TEMPLATE,
            allowedGroups: [groupDn('developers')],
            ...(groupLookupSettings ? { groupLookupSettings } : {}),
          },
        },
      ],
    },
  });
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'pets', namespace: 'default' },
      spec: { ports: [{ port: 8080 }] },
    },
    authCredentialsSecret('ldap-reader', 'default', SERVICE_ACCOUNT.dn, SERVICE_ACCOUNT.password),
    authConfig('ldap'),
    authConfig('ldap-sa', {
      checkGroupsWithServiceAccount: true,
      credentialsSecretRef: { name: 'ldap-reader', namespace: 'default' },
    }),
    vs('users', { extauth: { configRef: { name: 'ldap', namespace: 'default' } } }),
    vs('readers', { extauth: { configRef: { name: 'ldap-sa', namespace: 'default' } } }),
    vs('open'),
  ]
    .map((d) => stringify(d))
    .join('---\n');
}

type VirtualHost = { name: string; typed_per_filter_config?: Record<string, unknown> };

/** Every virtual host anywhere in the bootstrap. */
function virtualHosts(node: unknown): VirtualHost[] {
  if (Array.isArray(node)) return node.flatMap(virtualHosts);
  if (typeof node !== 'object' || node === null) return [];
  const o = node as Record<string, unknown>;
  return [
    ...(Array.isArray(o.virtual_hosts) ? (o.virtual_hosts as VirtualHost[]) : []),
    ...Object.entries(o)
      .filter(([k]) => k !== 'virtual_hosts')
      .flatMap(([, v]) => virtualHosts(v)),
  ];
}

beforeAll(async () => {
  slapd = await startSlapd();
  const out = path.dirname(await compileConfig(resources()));
  // The service-account password is in extauth.json: owner-only. The bootstrap has no TLS key: the umask decides.
  expect((await stat(path.join(out, 'extauth.json'))).mode & 0o777).toBe(0o600);
  expect((await stat(path.join(out, 'envoy.json'))).mode & 0o777).toBe(0o644 & ~process.umask());
  // What Envoy would send as context_extensions, per virtual host, read from the emitted bootstrap.
  const bootstrap = JSON.parse(await readFile(path.join(out, 'envoy.json'), 'utf8')) as Json;
  configRefs = {};
  for (const vh of virtualHosts(bootstrap)) {
    const per = vh.typed_per_filter_config?.['envoy.filters.http.ext_authz'] as
      { disabled?: boolean; check_settings?: { context_extensions?: { config_ref?: string } } } | undefined;
    configRefs[vh.name.replace('default.', '')] = per?.disabled
      ? 'disabled'
      : per?.check_settings?.context_extensions?.config_ref;
  }
  const opts = parseArgs([
    '--config',
    path.join(out, 'extauth.json'),
    '--port',
    '0',
    '--admin-port',
    '0',
    '--bind',
    '127.0.0.1',
  ]);
  server = await startExtauth({ ...opts, logger: testLogger() });
  check = checker(server.port);
});

afterAll(async () => {
  check?.close();
  await server?.close();
  await slapd?.close();
});

test('the compiled virtual hosts carry the AuthConfig names as config_ref; the open host has ext_authz disabled', () => {
  expect(configRefs).toEqual({ users: 'default.ldap', readers: 'default.ldap-sa', open: 'disabled' });
});

test('the sidecar enforces the compiled AuthConfigs (user mode and service account from the Secret)', async () => {
  for (const ref of [configRefs.users, configRefs.readers]) {
    expect(httpStatus(await check(ref, { authorization: basic('alice', 'alice-pw') }))).toBe(200);
    expect(httpStatus(await check(ref, { authorization: basic('bob', 'bob-pw') }))).toBe(403);
    expect(httpStatus(await check(ref, { authorization: basic('alice', 'nope') }))).toBe(401);
    expect(httpStatus(await check(ref, {}))).toBe(401);
  }
  expect(slapd.log()).toContain(`BIND dn="${SERVICE_ACCOUNT.dn}"`);
});
