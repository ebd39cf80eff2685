/**
 * explain on LDAP hosts: the 401/403/500/503 of docs/extauth.md, asked of a
 * real slapd with --ldap, and what explain says without it.
 */
import type { GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import type { ExplainRequest } from '../../compiler/explain/model.js';
import { renderText } from '../../compiler/explain/render.js';
import { credentialHeaders } from '../../compiler/explain/request.js';
import { closedPort } from '../extauth/helpers.js';
import { SERVICE_ACCOUNT, USER_DN_TEMPLATE, groupDn, startSlapd, userDn, type Slapd } from '../../harness/slapd.js';
import { compileYaml } from './tables.js';

let slapd: Slapd;
let config: GatewayConfig;

function authConfig(name: string, address: string, serviceAccount?: { dn: string; password: string }): string {
  const secret = serviceAccount
    ? `---
apiVersion: v1
kind: Secret
metadata: { name: ${name}-sa, namespace: t }
stringData: { username: '${serviceAccount.dn}', password: '${serviceAccount.password}' }
`
    : '';
  const lookup = serviceAccount
    ? `\n        groupLookupSettings: { checkGroupsWithServiceAccount: true, credentialsSecretRef: { name: ${name}-sa, namespace: t } }`
    : '';
  return `${secret}---
apiVersion: enterprise.gateway.example/v1
kind: AuthConfig
metadata: { name: ${name}, namespace: t }
spec:
  configs:
    - ldap:
        address: ${address}
        userDnTemplate: '${USER_DN_TEMPLATE}'
        allowedGroups: ['${groupDn('developers')}']${lookup}
---
apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: { name: ${name}, namespace: t }
spec:
  virtualHost:
    domains: [${name}.test]
    routes:
      - matchers: [{ prefix: / }]
        routeAction: { single: { upstream: { name: echo, namespace: t } } }
    options:
      extauth: { configRef: { name: ${name}, namespace: t } }
`;
}

beforeAll(async () => {
  slapd = await startSlapd();
  const down = `ldap://127.0.0.1:${await closedPort()}`;
  config = await compileYaml(`apiVersion: gloo.gateway.example/v1
kind: Upstream
metadata: { name: echo, namespace: t }
spec: { static: { hosts: [{ addr: 127.0.0.1, port: 9 }] } }
${authConfig('staff', slapd.url)}${authConfig('broken-sa', slapd.url, { dn: SERVICE_ACCOUNT.dn, password: 'wrong' })}${authConfig('down', down)}`);
});

afterAll(() => slapd?.close());

const request = (host: string, user?: string): ExplainRequest => ({
  method: 'GET',
  url: `http://${host}/x`,
  headers: credentialHeaders(user, undefined),
});

test.each([
  ['staff.test', undefined, 401],
  ['staff.test', 'alice:wrong', 401],
  ['staff.test', 'nobody:pw', 401],
  ['staff.test', 'bob:bob-pw', 403],
  ['staff.test', 'dave:dave-pw', 403],
  ['broken-sa.test', 'alice:alice-pw', 500],
  ['down.test', 'alice:alice-pw', 503],
  ['staff.test', 'alice:alice-pw', 'upstream'],
  ['staff.test', 'josé:pässwörd', 'upstream'],
])('with --ldap: %s as %s -> %s', async (host, user, status) => {
  const e = await explain(config, request(host, user), { ldap: true });
  expect(e.answer).toMatchObject({ status, assumptions: [] });
  if (status === 401)
    expect(e.answer.headers).toEqual({ 'www-authenticate': `Basic realm="t.${host.split('.')[0]}", charset="UTF-8"` });
  if (status === 'upstream')
    expect(e.steps.find((s) => s.stage === 'destination')!.details).toContain(
      `headers set: x-user-id: ${userDn(user!.split(':')[0]!)}`,
    );
});

test('without --ldap: the bind DN the sidecar builds, the groups allowed, and what explain cannot know', async () => {
  const logBefore = slapd.log().length;
  const e = await explain(config, request('staff.test', '(alice)*:pw'), {});
  const step = e.steps.find((s) => s.stage === 'ext_authz')!;
  expect(step.details).toEqual([
    'AuthConfig t.staff (context_extensions config_ref on the virtual host)',
    `directory ${slapd.url}`,
    'username "(alice)*" cleaned to "alice"',
    `1. bind as "${userDn('alice')}" with the given password (rejected: 401)`,
    `2. search base "${userDn('alice')}" filter (uid=*) for memberOf (no entry: 403)`,
    `3. allowed groups: "${groupDn('developers')}" (none held: 403)`,
  ]);
  expect(e.answer.status).toBe('upstream');
  expect(e.answer.assumptions).toEqual([
    `sluice-extauth allows: ${userDn('alice')} binds with that password at ${slapd.url} and is in an allowed group`,
  ]);
  expect(e.answer.otherwise.map((o) => o.status)).toEqual([401, 403, 500, 503]);
  // No directory was asked: slapd saw no bind for alice.
  expect(slapd.log().slice(logBefore)).not.toContain('BIND');
  // Credentials missing or unusable are known without the directory.
  expect((await explain(config, request('staff.test'), {})).answer).toMatchObject({
    status: 401,
    body: '',
    assumptions: [],
  });
  expect((await explain(config, request('staff.test', '(*):pw'), {})).answer).toMatchObject({
    status: 401,
    assumptions: [],
  });
  expect(renderText(e)).not.toContain(':pw');
});
