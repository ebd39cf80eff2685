/**
 * explain against docs/envoy-behaviour.md: every status and body the docs
 * give for JWT and RBAC (the tables in ./tables.ts, which the Envoy e2e test
 * also runs through a real Envoy), read from the compiled configuration. The
 * remote key set is served by a real HTTP server on 127.0.0.1.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { renderText } from '../../compiler/explain/render.js';
import { runCase, type TestCase } from '../../compiler/explain/request-test.js';
import { compileYaml, csrfCases, jwtRbacCases, makeKeys, resources, type Keys } from './tables.js';

let keys: Keys;
let config: GatewayConfig;
let cases: TestCase[];
let jwks: Server;

beforeAll(async () => {
  keys = await makeKeys();
  jwks = createServer((req, res) => {
    if (req.url !== '/keys.json') return void res.writeHead(404).end();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(keys.remoteJwks));
  });
  jwks.listen(0, '127.0.0.1');
  await once(jwks, 'listening');
  config = await compileYaml(resources(keys, { echo: 9, jwks: (jwks.address() as AddressInfo).port }));
  cases = [...(await jwtRbacCases(keys)), ...csrfCases()];
});

afterAll(() => jwks?.close());

test('every JWT, RBAC and CSRF answer of docs/envoy-behaviour.md, with remote keys fetched', async () => {
  const failures: string[] = [];
  for (const c of cases) {
    const r = await runCase(config, c, { fetchJwks: true });
    if (r.result !== 'pass') failures.push(`${c.name}: ${r.result}: ${r.reasons.join('; ')}`);
  }
  expect(failures).toEqual([]);
  expect(cases.length).toBeGreaterThanOrEqual(40);
});

test('without --fetch-jwks a remote signature is an assumption, with the 401s it could turn into', async () => {
  const good = cases.find((c) => c.name === 'remote.test: good token in the header')!;
  const forged = cases.find((c) => c.name === 'remote.test: bad signature: 401')!;
  expect((await runCase(config, good, {})).result).toBe('unverified');
  // A forged token passes the checks explain can make, so it cannot be told from a good one...
  const r = await runCase(config, forged, {});
  expect(r.result).toBe('unverified');
  expect(r.explanation!.answer).toMatchObject({
    status: 'upstream',
    otherwise: expect.arrayContaining([
      { status: 401, body: 'Jwt verification fails', by: 'envoy.filters.http.jwt_authn' },
    ]),
  });
  // ...but the checks before the signature still decide.
  expect(
    (
      await runCase(
        config,
        cases.find((c) => c.name === 'remote.test: wrong issuer: 401')!,
        {},
      )
    ).result,
  ).toBe('pass');
});

test('a denial says why each policy did not match, and the last line is the answer', async () => {
  const e = await explain(config, {
    method: 'DELETE',
    url: 'http://local.test/owners/1',
    headers: [],
    claims: { sub: 'mallory' },
  });
  const rbac = e.steps.find((s) => s.stage === 'rbac')!;
  expect(rbac.summary).toBe('denied: no ALLOW policy matches');
  expect(rbac.details).toEqual(['policy pet-readers: no match: method "DELETE" is not "GET"']);
  const text = renderText(e).trimEnd().split('\n');
  expect(text.at(-1)).toBe('answer: 403 "RBAC: access denied" from envoy.filters.http.rbac');

  const claims = await explain(config, {
    method: 'GET',
    url: 'http://local.test/pets/1',
    headers: [],
    claims: { sub: 'mallory' },
  });
  expect(claims.steps.find((s) => s.stage === 'rbac')!.details).toEqual([
    'policy pet-readers: no match: claim sub of provider inline "mallory" is not "alice"',
  ]);
});

test('jwt_authn says where it looked for the token', async () => {
  const e = await explain(config, { method: 'GET', url: 'http://both.test/', headers: [] });
  const jwt = e.steps.find((s) => s.stage === 'jwt_authn')!;
  expect(jwt.details).toContain(
    'provider e2e.both.inline: no token in header Authorization after "Bearer ", query parameter access_token',
  );
  expect(e.answer).toMatchObject({ status: 401, body: 'Jwt is missing', assumptions: [] });
});

test('routing: domains exact, then suffix and prefix wildcards (longest first), then "*"; routes in order', async () => {
  const wild = await compileYaml(`apiVersion: gloo.gateway.example/v1
kind: Upstream
metadata: { name: echo, namespace: w }
spec: { static: { hosts: [{ addr: 127.0.0.1, port: 9 }] } }
${['api.example.com', '*.example.com', '*.api.example.com', 'api.*', '*']
  .map(
    (d, i) => `---
apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: { name: vs${i}, namespace: w }
spec:
  virtualHost:
    domains: ['${d}']
    routes:
      - matchers: [{ prefix: /a }]
        routeAction: { single: { upstream: { name: echo, namespace: w } } }
      - matchers: [{ prefix: / }]
        routeAction: { single: { upstream: { name: echo, namespace: w } } }
`,
  )
  .join('')}`);
  const pick = async (host: string, p = '/') => {
    const e = await explain(wild, { method: 'GET', url: `http://${host}${p}`, headers: [] });
    return [e.matched.virtualHost, e.matched.route];
  };
  expect(await pick('API.example.com')).toEqual(['w.vs0', 'w.vs0/1']);
  expect(await pick('v1.api.example.com', '/a/b')).toEqual(['w.vs2', 'w.vs2/0']);
  expect(await pick('www.example.com')).toEqual(['w.vs1', 'w.vs1/1']);
  expect(await pick('api.internal')).toEqual(['w.vs3', 'w.vs3/1']);
  // The wildcard matches no empty string, and the port is part of the host.
  expect(await pick('.example.com')).toEqual(['w.vs4', 'w.vs4/1']);
  expect(await pick('api.example.com:8080')).toEqual(['w.vs3', 'w.vs3/1']);
});

test('csrf: a refusal names the origins compared; a policy enforced on part of the requests is an assumption with the 403 beside it', async () => {
  const e = await explain(config, {
    method: 'POST',
    url: 'http://csrf.test/transfer',
    headers: [['Origin', 'http://evil.test:8443']],
  });
  const step = e.steps.find((s) => s.stage === 'csrf')!;
  expect(step.summary).toBe(
    "denied: the source origin evil.test:8443 is neither the request's host csrf.test nor an additional origin",
  );
  expect(step.details).toEqual([
    "the virtual host's policy: enforced for 100% of requests",
    'source origin: "evil.test:8443", from Origin; target: "csrf.test", from Host',
  ]);
  expect(e.answer).toMatchObject({
    status: 403,
    body: 'Invalid origin',
    by: 'envoy.filters.http.csrf',
    assumptions: [],
  });
  const partial = await compileYaml(`apiVersion: gloo.gateway.example/v1
kind: Upstream
metadata: { name: echo, namespace: p }
spec: { static: { hosts: [{ addr: 127.0.0.1, port: 9 }] } }
---
apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: { name: bank, namespace: p }
spec:
  virtualHost:
    domains: [bank.test]
    routes: [{ matchers: [{ prefix: / }], routeAction: { single: { upstream: { name: echo, namespace: p } } } }]
    options: { csrf: { filterEnabled: { defaultValue: { numerator: 2500, denominator: TEN_THOUSAND } } } }
`);
  const p = await explain(partial, {
    method: 'PATCH',
    url: 'http://bank.test/me',
    headers: [['Referer', 'https://evil.test/page']],
  });
  expect(p.answer).toMatchObject({
    status: 'upstream',
    assumptions: ['the csrf filter does not enforce its policy on this request (it does on 25% of them)'],
    otherwise: [{ status: 403, body: 'Invalid origin', by: 'envoy.filters.http.csrf' }],
  });
});
