import { jest } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { jsonSyntaxError } from '../runtime/config-file.js';
import { ConfigError, DEFAULT_POOL, loadConfigFile, parseAuthConfigSet, type AuthConfig } from './config.js';
import { ldapModule, type LdapSettings } from './modules/ldap.js';
import { parseArgs } from './cli.js';
import { decodeAuthConfigs } from './xds.js';
import { encodeMessage } from '../contract/codec.js';
import { TYPE_URL } from '../contract/names.js';
import { tempDir } from '../harness/temp-dir.js';

/** The settings of an AuthConfig's `i`th config, an ldap one. */
const ldapOf = (c: AuthConfig | undefined, i = 0) => c!.configs[i]!.settings as LdapSettings;

const ldap = {
  address: 'ldap://ldap:389',
  user_dn_template: 'uid=%s,ou=people,dc=example,dc=org',
  allowed_groups: ['cn=devs,dc=example,dc=org'],
};

test('defaults fill what the compiled config leaves out', () => {
  expect(parseAuthConfigSet({ resources: [{ name: 'ns.a', configs: [{ ldap }] }] })).toEqual([
    {
      name: 'ns.a',
      configs: [
        {
          name: 'config_0',
          module: ldapModule,
          settings: {
            address: 'ldap://ldap:389',
            userDnTemplate: 'uid=%s,ou=people,dc=example,dc=org',
            allowedGroups: ['cn=devs,dc=example,dc=org'],
            searchFilter: '(uid=*)',
            membershipAttributeName: 'memberOf',
            pool: DEFAULT_POOL,
            disableGroupChecking: false,
          },
        },
      ],
      failOnRedirect: false,
    },
  ]);
});

test('lowerCamelCase proto JSON names are accepted too, and pool settings are read', () => {
  const [c] = parseAuthConfigSet({
    resources: [
      {
        name: 'ns.a',
        configs: [
          {
            ldap: {
              address: 'ldaps://ldap:636',
              userDnTemplate: 'uid=%s',
              serviceAccount: { username: 'cn=sa', password: 'pw' },
              pool: { maxSize: 9, initialSize: 7 },
            },
          },
        ],
      },
    ],
  });
  expect(ldapOf(c).serviceAccount).toEqual({ username: 'cn=sa', password: 'pw' });
  expect(ldapOf(c).pool).toEqual({ ...DEFAULT_POOL, maxSize: 9, initialSize: 7 });
  const [d] = parseAuthConfigSet({
    resources: [{ name: 'ns.a', configs: [{ ldap: { ...ldap, pool: { max_size: 4 } } }] }],
  });
  expect(ldapOf(d).pool).toEqual({ ...DEFAULT_POOL, maxSize: 4, initialSize: 0 });
});

test.each([
  [{ resources: [{ configs: [{ ldap }] }] }, 'name: required'],
  [{ resources: [{ name: 'a', configs: [{ ldap: { ...ldap, address: 'ldap://host' } }] }] }, 'is not ldap://host:port'],
  // ldapts cannot open these (its constructor throws); they must never reach a pool.
  [
    { resources: [{ name: 'a', configs: [{ ldap: { ...ldap, address: 'ldap://ldap:99999' } }] }] },
    'address: "ldap://ldap:99999" has port 99999, outside 1-65535',
  ],
  [{ resources: [{ name: 'a', configs: [{ ldap: { ...ldap, address: 'ldaps://ldap:0' } }] }] }, 'outside 1-65535'],
  [{ resources: [{ name: 'a', configs: [{ ldap: { ...ldap, user_dn_template: 'uid=x' } }] }] }, 'must contain %s'],
  [
    { resources: [{ name: 'a', configs: [{ ldap: { ...ldap, search_filter: '(uid=%s' } }] }] },
    'search_filter: "(uid=%s" is not an LDAP search filter',
  ],
  [
    { resources: [{ name: 'a', configs: [{ ldap: { ...ldap, search_filter: '(uid=%s)(cn=x)' } }] }] },
    'is not an LDAP search filter',
  ],
  [
    { resources: [{ name: 'a', configs: [{ oauth: {} }] }] },
    'no kind sluice-extauth implements (oauth); it implements ldap',
  ],
  [
    { resources: [{ name: 'a', configs: [{ oauth2: {} }] }] },
    'oauth2: exactly one of oidc_authorization_code and access_token_validation',
  ],
  [
    {
      resources: [
        {
          name: 'a',
          configs: [
            {
              oauth2: {
                oidc_authorization_code: {
                  ...{
                    client_id: 'c',
                    issuer_url: 'https://idp.example.org',
                    app_url: 'https://app.example.org',
                    callback_path: '/cb',
                  },
                  session: { cipher_keys: ['short'] },
                },
              },
            },
          ],
        },
      ],
    },
    'session.cipher_keys[0]: must be 32 bytes long',
  ],
  [
    {
      resources: [
        {
          name: 'a',
          configs: [
            {
              oauth2: {
                oidc_authorization_code: {
                  ...{
                    client_id: 'c',
                    issuer_url: 'https://idp.example.org',
                    app_url: 'https://app.example.org',
                    callback_path: '/cb',
                  },
                  callback_path: 'cb',
                },
              },
            },
          ],
        },
      ],
    },
    'callback_path: must start with /',
  ],
  [
    {
      resources: [
        {
          name: 'a',
          configs: [
            {
              oauth2: {
                oidc_authorization_code: {
                  ...{
                    client_id: 'c',
                    issuer_url: 'https://idp.example.org',
                    app_url: 'https://app.example.org',
                    callback_path: '/cb',
                  },
                  app_url: 'app.example.org',
                },
              },
            },
          ],
        },
      ],
    },
    'app_url: must be an http:// or https:// URL',
  ],
  [
    { resources: [{ name: 'a', configs: [{ ldap: { ...ldap, service_account: { username: 'cn=sa' } } }] }] },
    'service_account.password: required',
  ],
  [{ resources: [{ name: 'a' }, { name: 'a' }] }, 'defined twice'],
  [
    { resources: [{ name: 'a', configs: [{ ldap: { ...ldap, service_account: { username: '', password: 'pw' } } }] }] },
    'service_account.username: required',
  ],
  [
    {
      resources: [
        { name: 'a', configs: [{ ldap: { ...ldap, service_account: { username: 'cn=sa', password: '' } } }] },
      ],
    },
    'service_account.password: required',
  ],
  // Node's timers fire after 1 ms above 2^31-1 ms: every check would be a 503.
  [
    { resources: [{ name: 'a', configs: [{ ldap: { ...ldap, pool: { operation_timeout_ms: 2 ** 31 } } }] }] },
    'pool.operation_timeout_ms: 2147483648 is above the limit of 300000',
  ],
  [
    { resources: [{ name: 'a', configs: [{ ldap: { ...ldap, pool: { connect_timeout_ms: 300_001 } } }] }] },
    'pool.connect_timeout_ms: 300001 is above',
  ],
  [
    { resources: [{ name: 'a', configs: [{ ldap: { ...ldap, pool: { max_size: 1001 } } }] }] },
    'pool.max_size: 1001 is above the limit of 1000',
  ],
  [
    { resources: [{ name: 'a', configs: [{ ldap: { ...ldap, pool: { initial_size: 1001, max_size: 1000 } } }] }] },
    'pool.initial_size: 1001 is above',
  ],
  [
    { resources: [{ name: 'a', configs: [{ ldap: { ...ldap, pool: { initial_size: 12, max_size: 9 } } }] }] },
    'pool.initial_size: 12 is larger than max_size 9',
  ],
  [
    { resources: [{ name: 'a', configs: [{ ldap: { ...ldap, pool: { initial_size: 6 } } }] }] },
    'pool.initial_size: 6 is larger than max_size 5',
  ],
  [
    { resources: [{ name: 'a', configs: [{ ldap: { ...ldap, allowed_groups: ['developers'] } }] }] },
    'allowed_groups[0]: "developers" is not a DN',
  ],
  // Proto3 JSON writes numbers as numbers or decimal strings, nothing else.
  [
    { resources: [{ name: 'a', configs: [{ ldap: { ...ldap, pool: { max_size: '' } } }] }] },
    'pool.max_size: must be a non-negative integer',
  ],
  [
    { resources: [{ name: 'a', configs: [{ ldap: { ...ldap, pool: { max_size: ' ' } } }] }] },
    'pool.max_size: must be a non-negative integer',
  ],
  [
    { resources: [{ name: 'a', configs: [{ ldap: { ...ldap, pool: { operation_timeout_ms: '0.0' } } }] }] },
    'pool.operation_timeout_ms: must be a non-negative integer',
  ],
  [
    { resources: [{ name: 'a', configs: [{ ldap: { ...ldap, pool: { connect_timeout_ms: '-0' } } }] }] },
    'pool.connect_timeout_ms: must be a non-negative integer',
  ],
])('invalid config %# -> ConfigError', (raw, message) => {
  expect(() => parseAuthConfigSet(raw)).toThrow(ConfigError);
  expect(() => parseAuthConfigSet(raw)).toThrow(message);
});

test.each([[0], ['0'], ['00'], [-0]])(
  'max_size and timeouts of %j are unset (proto3): the defaults, never a pool of 0 or no timeout',
  (zero) => {
    const [c] = parseAuthConfigSet({
      resources: [
        {
          name: 'a',
          configs: [
            {
              ldap: {
                ...ldap,
                pool: { initial_size: zero, max_size: zero, connect_timeout_ms: zero, operation_timeout_ms: zero },
              },
            },
          ],
        },
      ],
    });
    // initial_size 0 is a real setting: open connections only when checks need them.
    expect(ldapOf(c).pool).toEqual({ ...DEFAULT_POOL, initialSize: 0 });
  },
);

test('pool settings at their limits are accepted', () => {
  const [c] = parseAuthConfigSet({
    resources: [
      {
        name: 'a',
        configs: [
          {
            ldap: {
              ...ldap,
              pool: { initial_size: 1000, max_size: 1000, connect_timeout_ms: 300_000, operation_timeout_ms: 300_000 },
            },
          },
        ],
      },
    ],
  });
  expect(ldapOf(c).pool).toEqual({
    initialSize: 1000,
    maxSize: 1000,
    connectTimeoutMs: 300_000,
    operationTimeoutMs: 300_000,
  });
});

test('loadConfigFile names the file in its errors', async () => {
  const dir = tempDir('extauth-config');
  const file = path.join(dir, 'extauth.json');
  await writeFile(file, '{"resources": [');
  await expect(loadConfigFile(file)).rejects.toThrow(`${file}: not JSON`);
  await writeFile(file, JSON.stringify({ resources: [{ name: 'ns.a', configs: [{ ldap }] }] }));
  expect((await loadConfigFile(file)).map((c) => c.name)).toEqual(['ns.a']);
  await expect(loadConfigFile(path.join(dir, 'missing.json'))).rejects.toThrow('cannot read');
});

describe('a file that is not JSON', () => {
  const secret = 'hunter2-s3cret';
  /** An AuthConfigSet file with the service-account password written as `broken` instead of a JSON string. */
  const withPassword = (broken: string) =>
    JSON.stringify(
      {
        resources: [
          { name: 'ns.a', configs: [{ ldap: { ...ldap, service_account: { username: 'cn=sa', password: 'PW' } } }] },
        ],
      },
      null,
      2,
    ).replace('"PW"', broken);

  test.each([
    ['unquoted', secret, 'invalid symbol'],
    ['unterminated', `"${secret}`, 'unexpected end of string'],
    ['single-quoted', `'${secret}'`, 'invalid symbol'],
  ])('%s password: the error names the file and the position, never the text', async (_name, broken, reason) => {
    const file = path.join(tempDir('extauth-config'), 'extauth.json');
    const text = withPassword(broken);
    await writeFile(file, text);
    const err = await loadConfigFile(file).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(err?.message).not.toContain('hunter2');
    expect(err?.message).not.toContain('s3cret');
    // The position is where the broken value starts.
    const at = text.indexOf(broken);
    const before = text.slice(0, at);
    expect(err?.message).toBe(
      `${file}: not JSON: ${reason} at line ${before.split('\n').length}, column ${at - before.lastIndexOf('\n')}`,
    );
  });

  test('jsonSyntaxError agrees with JSON.parse on every one-character deletion and insertion of a config', () => {
    const text = withPassword('"pw \\u00e9\\n"').replace('"ns.a"', '"ns.a", "n": [-1.5e3, true, false, null, {}, []]');
    const variants = [text];
    for (let i = 0; i < text.length; i++) {
      variants.push(text.slice(0, i) + text.slice(i + 1));
      for (const c of ['"', ',', '}', ']', 'x', '\\', '\u0001']) variants.push(text.slice(0, i) + c + text.slice(i));
    }
    for (const v of variants) {
      let parses = true;
      try {
        JSON.parse(v);
      } catch {
        parses = false;
      }
      expect([v, jsonSyntaxError(v) === undefined]).toEqual([v, parses]);
    }
  });
});

test('xDS resources: the binary AuthConfig round-trips; another type URL is refused', () => {
  const value = encodeMessage(TYPE_URL.authConfig, {
    name: 'ns.a',
    configs: [{ ldap: { ...ldap, pool: { max_size: 3 } } }],
  });
  const [c] = decodeAuthConfigs([{ type_url: TYPE_URL.authConfig, value }], DEFAULT_POOL);
  expect(c.name).toBe('ns.a');
  expect(ldapOf(c).pool.maxSize).toBe(3);
  expect(ldapOf(c).allowedGroups).toEqual(ldap.allowed_groups);
  expect(() =>
    decodeAuthConfigs([{ type_url: 'type.googleapis.com/envoy.config.cluster.v3.Cluster', value }], DEFAULT_POOL),
  ).toThrow('want');
});

describe('command line', () => {
  test('defaults and flags', () => {
    const o = parseArgs(['--config', 'out/extauth.json']);
    // Loopback unless told otherwise, as every binary (--bind).
    expect(o).toMatchObject({
      port: 8083,
      adminPort: 8093,
      host: '127.0.0.1',
      config: 'out/extauth.json',
      nodeId: 'sluice-extauth',
      poolDefaults: DEFAULT_POOL,
    });
    expect(parseArgs(['--config', 'out/extauth.json', '--bind', '0.0.0.0']).host).toBe('0.0.0.0');
    const x = parseArgs([
      '--xds',
      'sluice:18000',
      '--port',
      '9000',
      '--admin-port',
      '9001',
      '--node-id',
      'n1',
      '--ldap-pool-max',
      '8',
      '--ldap-timeout-ms',
      '100',
    ]);
    expect(x).toMatchObject({
      xds: 'sluice:18000',
      port: 9000,
      adminPort: 9001,
      nodeId: 'n1',
      poolDefaults: { maxSize: 8, operationTimeoutMs: 100 },
    });
  });

  test('exactly one configuration source', () => {
    const quiet = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(() => parseArgs([])).toThrow();
      expect(() => parseArgs(['--config', 'a', '--xds', 'b:1'])).toThrow();
      expect(() => parseArgs(['--config', 'a', '--port', 'x'])).toThrow();
      for (const bad of ['1e3', '0x50', ' 80']) expect(() => parseArgs(['--config', 'a', '--port', bad])).toThrow();
      expect(() => parseArgs(['--config', 'a', '--ldap-pool-max', '1e1'])).toThrow();
      expect(() => parseArgs(['--config', 'a', '--ldap-pool-max', '1001'])).toThrow();
      expect(() => parseArgs(['--config', 'a', '--ldap-pool-initial', '1001'])).toThrow();
      expect(() => parseArgs(['--config', 'a', '--ldap-timeout-ms', '300001'])).toThrow();
      expect(() => parseArgs(['--config', 'a', '--ldap-connect-timeout-ms', '300001'])).toThrow();
    } finally {
      quiet.mockRestore();
    }
  });
});
