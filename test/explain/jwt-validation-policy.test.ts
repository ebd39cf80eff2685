/**
 * explain on Gloo's validationPolicy (golden/jwt-validation-policy compiles
 * the same options): Envoy's answer for no token, an invalid one and a valid
 * one under REQUIRE_VALID, ALLOW_MISSING and ALLOW_MISSING_OR_FAILED. Under
 * ALLOW_MISSING an invalid token is still refused with 401; under
 * ALLOW_MISSING_OR_FAILED it passes jwt_authn without claims, so an RBAC
 * policy on the claims refuses it.
 */
import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import type { GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { compileYaml } from './tables.js';

const ISSUER = 'https://auth.corp.example';
let config: GatewayConfig;
let key: CryptoKey;
let stranger: CryptoKey;

function host(name: string, jwtExtra: string, rbac = ''): string {
  return `apiVersion: gateway.solo.io/v1
kind: VirtualService
metadata: {name: ${name}, namespace: default}
spec:
  virtualHost:
    domains: [${name}.test]
    routes:
      - matchers: [{prefix: /}]
        routeAction: {single: {kube: {ref: {name: petstore, namespace: default}, port: 8080}}}
    options:${rbac}
      jwt:
${jwtExtra}        providers:
          corp:
            issuer: ${ISSUER}
            jwks: {local: {key: KEY}}
---
`;
}

const RBAC = `
      rbac:
        policies:
          alice-only:
            principals: [{jwtPrincipal: {claims: {sub: alice}}}]`;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  key = pair.privateKey;
  stranger = (await generateKeyPair('RS256')).privateKey;
  const pem = JSON.stringify(await exportSPKI(pair.publicKey));
  const yaml =
    host('required', '') +
    host('missing', '        validationPolicy: ALLOW_MISSING\n') +
    host('failed', '        validationPolicy: ALLOW_MISSING_OR_FAILED\n') +
    host('legacy', '        allowMissingOrFailedJwt: true\n', RBAC) +
    'apiVersion: v1\nkind: Service\nmetadata: {name: petstore, namespace: default}\nspec: {ports: [{port: 8080}]}\n';
  config = await compileYaml(yaml.replaceAll('KEY', pem));
});

const now = () => Math.floor(Date.now() / 1000);
const TOKENS = {
  none: async () => undefined,
  valid: () => sign(key, ISSUER, now() + 600),
  expired: () => sign(key, ISSUER, now() - 600),
  forged: () => sign(stranger, ISSUER, now() + 600),
  otherIssuer: () => sign(key, 'https://elsewhere.example', now() + 600),
};

function sign(with_: CryptoKey, iss: string, exp: number): Promise<string> {
  return new SignJWT({ sub: 'alice' })
    .setProtectedHeader({ alg: 'RS256' })
    .setIssuer(iss)
    .setExpirationTime(exp)
    .sign(with_);
}

async function answer(hostName: string, token: keyof typeof TOKENS) {
  const jwt = await TOKENS[token]();
  const e = await explain(config, {
    method: 'GET',
    url: `http://${hostName}.test/pets`,
    headers: jwt ? [['authorization', `Bearer ${jwt}`]] : [],
  });
  return { answer: e.answer, jwt: e.steps.find((s) => s.stage === 'jwt_authn')! };
}

const UPSTREAM = { status: 'upstream' };
const refused = (body: string) => ({ status: 401, body, by: 'envoy.filters.http.jwt_authn' });

test.each([
  ['required', 'none', refused('Jwt is missing')],
  ['required', 'expired', refused('Jwt is expired')],
  ['required', 'valid', UPSTREAM],
  ['missing', 'none', UPSTREAM],
  ['missing', 'expired', refused('Jwt is expired')],
  ['missing', 'forged', refused('Jwt verification fails')],
  ['missing', 'otherIssuer', refused('Jwt issuer is not configured')],
  ['missing', 'valid', UPSTREAM],
  ['failed', 'none', UPSTREAM],
  ['failed', 'expired', UPSTREAM],
  ['failed', 'forged', UPSTREAM],
  ['failed', 'valid', UPSTREAM],
  ['legacy', 'valid', UPSTREAM],
  ['legacy', 'expired', { status: 403, body: 'RBAC: access denied' }],
  ['legacy', 'none', { status: 403, body: 'RBAC: access denied' }],
] as const)('%s.test with a %s token', async (hostName, token, expected) => {
  expect((await answer(hostName, token)).answer).toMatchObject(expected);
});

test('the jwt_authn step says what the policy let through and why', async () => {
  const missing = await answer('missing', 'expired');
  expect(missing.jwt.details[0]).toContain('or no token at all (allow_missing)');
  expect(missing.jwt.details.at(-1)).toBe(
    'allow_missing admits only a missing token; the answer is the most telling failure: Jwt is expired',
  );
  const failed = await answer('failed', 'expired');
  expect(failed.jwt.summary).toBe(
    'passed without a verified token: allow_missing_or_failed: passes without a verified token (Jwt is expired)',
  );
  const valid = await answer('failed', 'valid');
  expect(valid.jwt.summary).toMatch(/^token accepted/);
});
