/**
 * explain on an oauth2.oidcAuthorizationCode host: the OIDC config decides,
 * and explain says what it would do without contacting the provider (its
 * issuer is a closed port): 302 to the provider for a request without a
 * session, 401 with failOnRedirect, the session deciding when the cookie is
 * there, the logout path's redirect.
 */
import type { GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import type { ExplainRequest } from '../../compiler/explain/model.js';
import { renderText } from '../../compiler/explain/render.js';
import { closedPort } from '../extauth/helpers.js';
import { compileYaml } from './tables.js';

let config: GatewayConfig;
let issuer: string;

const authConfig = (name: string, failOnRedirect: boolean) => `---
apiVersion: enterprise.gloo.solo.io/v1
kind: AuthConfig
metadata: { name: ${name}, namespace: t }
spec:
  failOnRedirect: ${failOnRedirect}
  configs:
    - name: login
      oauth2:
        oidcAuthorizationCode:
          appUrl: https://${name}.test
          callbackPath: /callback
          logoutPath: /logout
          afterLogoutUrl: https://${name}.test/bye
          clientId: app
          clientSecretRef: { name: client }
          issuerUrl: ${issuer}
          scopes: [email]
---
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
  issuer = `http://127.0.0.1:${await closedPort()}`;
  config = await compileYaml(`apiVersion: gloo.solo.io/v1
kind: Upstream
metadata: { name: echo, namespace: t }
spec: { static: { hosts: [{ addr: 127.0.0.1, port: 9 }] } }
---
apiVersion: v1
kind: Secret
metadata: { name: client, namespace: t }
type: extauth.solo.io/oauth
stringData: { client-secret: the-client-secret }
${authConfig('web', false)}${authConfig('api', true)}`);
});

const request = (url: string, headers: Record<string, string> = {}): ExplainRequest => ({
  method: 'GET',
  url,
  headers: Object.entries(headers),
});

test('no session: the OIDC config decides, 302 to the provider to log in (not contacted)', async () => {
  const e = await explain(config, request('http://web.test/pets'), {});
  const step = e.steps.find((s) => s.stage === 'ext_authz')!;
  expect(step.summary).toMatch(/decided by login/);
  expect(step.details.join('\n')).toContain(
    `302 to the authorization endpoint of ${issuer} (discovered; not contacted)`,
  );
  expect(e.answer).toMatchObject({ status: 302, by: 'sluice-extauth', assumptions: [] });
  expect(renderText(e)).not.toContain('the-client-secret');
});

test('failOnRedirect: the login redirect is answered 401', async () => {
  const e = await explain(config, request('http://api.test/pets'), {});
  expect(e.answer).toMatchObject({ status: 401, assumptions: [] });
});

test('with a session cookie: the session decides; allowed if live, otherwise a new login or 503', async () => {
  const e = await explain(config, request('http://web.test/pets', { cookie: '__session=abc' }), {});
  expect(e.answer.status).toBe('upstream');
  expect(e.answer.assumptions).toEqual(['login allows (not contacted)']);
  expect(e.answer.otherwise.map((o) => o.status).sort()).toEqual([302, 503]);
});

test('the logout path: 302 to afterLogoutUrl', async () => {
  const e = await explain(config, request('http://web.test/logout'), {});
  expect(e.answer).toMatchObject({ status: 302, headers: { location: 'https://web.test/bye' } });
});
