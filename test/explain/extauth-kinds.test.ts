/**
 * explain on AuthConfigs of apiKeyAuth, basicAuth, passThroughAuth and
 * booleanExpr: what the request alone decides is decided (the key looked up,
 * the password hashed as the sidecar hashes it, made here by openssl), what
 * a service decides is an assumption with its other answers, and the config
 * that decides is named. Nothing is contacted: the pass-through address is
 * a closed port.
 */
import { execFileSync } from 'node:child_process';
import type { GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import type { ExplainRequest } from '../../compiler/explain/model.js';
import { renderText } from '../../compiler/explain/render.js';
import { basic } from '../../harness/extauth-check.js';
import { closedPort } from '../extauth/helpers.js';
import { compileYaml } from './tables.js';

let config: GatewayConfig;

const host = (name: string) => `---
apiVersion: gateway.solo.io/v1
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

beforeAll(async () => {
  const [, , salt, hash] = execFileSync('openssl', ['passwd', '-apr1', 'alice-pw'], { encoding: 'utf8' })
    .trim()
    .split('$');
  const closed = await closedPort();
  config = await compileYaml(`apiVersion: gloo.solo.io/v1
kind: Upstream
metadata: { name: echo, namespace: t }
spec: { static: { hosts: [{ addr: 127.0.0.1, port: 9 }] } }
---
apiVersion: v1
kind: Secret
metadata: { name: ci-key, namespace: t }
type: extauth.solo.io/apikey
stringData: { api-key: ci-secret-key, owner: ci-team }
---
apiVersion: enterprise.gloo.solo.io/v1
kind: AuthConfig
metadata: { name: either, namespace: t }
spec:
  booleanExpr: password || key || remote
  configs:
    - name: password
      basicAuth: { realm: staff, apr: { users: { alice: { salt: '${salt}', hashedPassword: '${hash}' } } } }
    - name: key
      apiKeyAuth:
        apiKeySecretRefs: [{ name: ci-key }]
        headersFromMetadataEntry: { x-owner: { name: owner } }
    - name: remote
      passThroughAuth: { grpc: { address: '127.0.0.1:${closed}' } }
---
apiVersion: enterprise.gloo.solo.io/v1
kind: AuthConfig
metadata: { name: tokens, namespace: t }
spec:
  configs:
    - oauth2:
        accessTokenValidation:
          introspectionUrl: 'http://127.0.0.1:${closed}/introspect'
${host('either')}${host('tokens')}`);
});

const request = (headers: Record<string, string>): ExplainRequest => ({
  method: 'GET',
  url: 'http://either.test/x',
  headers: Object.entries(headers),
});

test('a password that matches: allowed, decided by the first config; the others are not asked', async () => {
  const e = await explain(config, request({ authorization: basic('alice', 'alice-pw') }), {});
  const step = e.steps.find((s) => s.stage === 'ext_authz')!;
  expect(step.summary).toBe('allowed (decided by password)');
  expect(step.details).toContain('not asked (short-circuit): key, remote');
  expect(e.answer).toMatchObject({ status: 'upstream', assumptions: [] });
  expect(renderText(e)).not.toContain('alice-pw');
});

test('a key of the Secret: allowed as the Secret, its metadata as a header; the key is never shown', async () => {
  const e = await explain(config, request({ 'api-key': 'ci-secret-key' }), {});
  expect(e.steps.find((s) => s.stage === 'ext_authz')!.summary).toBe('allowed (decided by key)');
  expect(e.answer).toMatchObject({ status: 'upstream', assumptions: [] });
  const destination = e.steps.find((s) => s.stage === 'destination')!.details.join('\n');
  expect(destination).toContain('x-user-id: ci-key');
  expect(destination).toContain('x-owner: ci-team');
  expect(renderText(e)).not.toContain('ci-secret-key');
});

test('neither: the pass-through service decides; allowed if it allows, otherwise its denial (401, 403) or 503', async () => {
  const e = await explain(config, request({ authorization: basic('alice', 'wrong') }), {});
  const step = e.steps.find((s) => s.stage === 'ext_authz')!;
  expect(step.details).toEqual(
    expect.arrayContaining([
      'password: denies: wrong password for "alice": 401',
      'key: denies: no api-key header: 401',
    ]),
  );
  expect(step.summary).toBe('allowed (decided by remote)');
  expect(e.answer.status).toBe('upstream');
  expect(e.answer.assumptions).toEqual(['remote allows (not contacted)']);
  expect(e.answer.otherwise.map((o) => o.status).sort()).toEqual([401, 403, 503]);
});

test('an access token: without a bearer token 403; with one, the introspection endpoint decides (not contacted): 403 or 503 otherwise', async () => {
  const url = 'http://tokens.test/x';
  const none = await explain(config, { method: 'GET', url, headers: [] }, {});
  expect(none.answer.status).toBe(403);
  const e = await explain(config, { method: 'GET', url, headers: [['authorization', 'Bearer some-token']] }, {});
  expect(e.steps.find((s) => s.stage === 'ext_authz')!.details.join('\n')).toContain('the introspection endpoint');
  expect(e.answer.status).toBe('upstream');
  expect(e.answer.otherwise.map((o) => o.status).sort()).toEqual([403, 503]);
});
