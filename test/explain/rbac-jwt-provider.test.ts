/**
 * explain on Gloo's jwtPrincipal.provider and REGEX_MATCH
 * (golden/rbac-jwt-provider): each provider's payload is under its own name,
 * so corp-admins admits only corp's tokens, readers a token of either
 * provider carrying both claims, and the /partners route's policy partner's
 * tokens whose email the RE2 pattern matches whole.
 */
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';

let config: GatewayConfig;

beforeAll(async () => {
  config = fromCompileResult(await compileFiles(['golden/rbac-jwt-provider/input'], DEFAULT_OPTIONS))!;
});

const run = (path: string, claims: Record<string, unknown>, claimsProvider: string) =>
  explain(config, { method: 'GET', url: `http://api.example.com${path}`, headers: [], claims, claimsProvider });

test.each([
  ['/', { role: 'admin' }, 'corp', 'upstream'],
  ['/', { role: 'admin' }, 'partner', 403],
  ['/', { scope: 'read', team: 'docs' }, 'corp', 'upstream'],
  ['/', { scope: 'read', team: 'docs' }, 'partner', 'upstream'],
  ['/', { scope: 'read' }, 'partner', 403],
  ['/partners', { email: 'ann@partner.example' }, 'partner', 'upstream'],
  ['/partners', { email: 'ann@partner.example' }, 'corp', 403],
  ['/partners', { email: 'ann@partnerXexample' }, 'partner', 403],
  ['/partners', { email: 'ann@partner.example.evil' }, 'partner', 403],
  ['/partners', { email: ['ann@partner.example'] }, 'partner', 403],
] as const)('GET %s with claims %j from provider %s: %s', async (path, claims, provider, expected) => {
  expect((await run(path, claims, provider)).answer.status).toBe(expected);
});

test('a denial names the provider whose payload each claim was looked for in', async () => {
  const e = await run('/', { role: 'admin' }, 'partner');
  const rbac = e.steps.find((s) => s.stage === 'rbac')!;
  expect(rbac.details).toContain(
    'policy corp-admins: no match: claim role of provider corp absent (no token of provider corp verified) is not "admin"',
  );
  expect(rbac.details.join('\n')).toContain('claim scope of provider partner absent is not "read"');
});

test('--claims-provider must name a provider of the virtual host', async () => {
  await expect(run('/', { role: 'admin' }, 'nobody')).rejects.toThrow(
    '--claims-provider nobody: the virtual host has no such provider (its providers: corp, partner)',
  );
});
