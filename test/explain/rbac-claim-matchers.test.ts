/**
 * explain on Gloo's jwtPrincipal.matcher (golden/rbac-claim-matchers): the
 * RBAC verdict for a token's claims under BOOLEAN (a boolean claim, not the
 * string "true"), LIST_CONTAINS (a list claim holding the value) and
 * EXACT_STRING.
 */
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';

let config: GatewayConfig;

beforeAll(async () => {
  config = fromCompileResult(await compileFiles(['golden/rbac-claim-matchers/input'], DEFAULT_OPTIONS))!;
});

const status = async (path: string, claims: Record<string, unknown>) =>
  (await explain(config, { method: 'GET', url: `http://api.example.com${path}`, headers: [], claims })).answer.status;

test.each([
  ['/admin', { email_verified: true, admin: true }, 'upstream'],
  ['/admin', { email_verified: 'true', admin: 'true' }, 403],
  ['/admin', { email_verified: true, admin: false }, 403],
  ['/docs', { groups: ['writers', 'readers'] }, 'upstream'],
  ['/docs', { groups: 'readers' }, 403],
  ['/docs', { roles: ['auditor'] }, 'upstream'],
  ['/docs', { sub: 'alice' }, 'upstream'],
  ['/docs', { sub: ['alice'] }, 403],
] as const)('GET %s with claims %j: %s', async (path, claims, expected) => {
  expect(await status(path, claims)).toBe(expected);
});
