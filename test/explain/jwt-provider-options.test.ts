/**
 * explain on Gloo's JWT provider options (golden/jwt-provider-options):
 * audiences refuse a token for another audience (403) before any key is needed,
 * and clockSkewSeconds narrows the leeway on exp from Envoy's 60 seconds.
 */
import { generateKeyPair, SignJWT } from 'jose';
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';

let config: GatewayConfig;
let sign: (claims: Record<string, unknown>) => Promise<string>;

beforeAll(async () => {
  config = fromCompileResult(await compileFiles(['golden/jwt-provider-options/input'], DEFAULT_OPTIONS))!;
  const { privateKey } = await generateKeyPair('RS256');
  sign = (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).sign(privateKey);
});

async function answerFor(claims: Record<string, unknown>) {
  const token = await sign({ iss: 'https://idp.example', ...claims });
  const e = await explain(config, {
    method: 'GET',
    url: 'http://petstore.example/pets',
    headers: [['authorization', `Bearer ${token}`]],
  });
  return { answer: e.answer, jwt: e.steps.find((s) => s.stage === 'jwt_authn')! };
}

const now = () => Math.floor(Date.now() / 1000);

test('a token for another audience is refused with 403; one of the listed audiences goes on to the keys', async () => {
  const other = await answerFor({ aud: 'billing', exp: now() + 600 });
  expect(other.answer).toMatchObject({ status: 403, body: 'Audiences in Jwt are not allowed' });
  const listed = await answerFor({ aud: ['x', 'petstore-admin'], exp: now() + 600 });
  expect(listed.answer.body).not.toBe('Audiences in Jwt are not allowed');
});

test('clockSkewSeconds 5: a token expired 20 seconds ago is refused (within Envoy default 60 it would pass)', async () => {
  const late = await answerFor({ aud: 'petstore', exp: now() - 20 });
  expect(late.answer).toMatchObject({ status: 401, body: 'Jwt is expired' });
  expect(late.jwt.details.join('\n')).toContain('exp is more than 5s (clock skew) in the past');
});
