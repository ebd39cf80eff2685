/**
 * Gloo's claimsToHeaders and nestedClaimDelimiter through the real `sluice
 * explain` (goldens jwt-claims-to-headers and rbac-nested-claims): a claim
 * becomes a header, a client's own copy of it never reaches the upstream,
 * routing on a claim header follows the token, and a nested claim matches
 * an RBAC policy where a flat name with dots does not.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CLAIMS = 'golden/jwt-claims-to-headers/input';
const NESTED = 'golden/rbac-nested-claims/input';
/** Each test runs several `sluice explain` processes on a shared machine. */
const SLOW = 60_000;

async function sluice(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, args).catch((e: { stdout: string }) => ({ stdout: e.stdout }));
  return stdout;
}

/** A token signed with the examples' demo key, which the goldens' providers trust. */
async function token(claims: object): Promise<string> {
  return (await sluice('scripts/demo-token.mjs', JSON.stringify(claims))).trim().split('\n').pop()!;
}

test(
  'claims become headers, and the client cannot send its own',
  async () => {
    const jwt = await token({ sub: 'alice', org: { team: 'platform' } });
    const out = await sluice(
      'bin/sluice.js',
      'explain',
      '-f',
      CLAIMS,
      'GET',
      'http://api.example.com/x',
      '--jwt',
      jwt,
      '-H',
      'x-jwt-sub: mallory',
      '-H',
      'x-jwt-email: forged@example.com',
    );
    // Both forged headers go before jwt_authn, x-jwt-email too though the accepting provider does not set it.
    expect(out).toMatch(/header_mutation +removed x-jwt-email, x-jwt-sub \(sent by the client\)/);
    expect(out).toMatch(
      /jwt_authn +token accepted; Authorization removed before forwarding \(forward: false\); claims copied to x-jwt-sub, x-jwt-team\n/,
    );
    expect(out).toMatch(/headers set: x-jwt-sub: alice; x-jwt-team: platform\n/);
    expect(out).not.toMatch(/mallory|forged@/);
    expect(out).toMatch(/answer: upstream/);
  },
  SLOW,
);

test(
  'routing on a claim header follows the token, not the client',
  async () => {
    const team = await sluice(
      'bin/sluice.js',
      'explain',
      '-f',
      CLAIMS,
      'GET',
      'http://api.example.com/x',
      '--jwt',
      await token({ sub: 'alice', org: { team: 'platform' } }),
    );
    expect(team).toMatch(
      /route +default\.api\/1 now \(jwt_authn cleared the route cache; the claim headers changed the match\)/,
    );
    expect(team).toMatch(/answer: upstream \(cluster default-platform-8080 answers\)/);
    // The client's copy picks the platform route first; once it is removed and the token has no team, the route is chosen again.
    const forged = await sluice(
      'bin/sluice.js',
      'explain',
      '-f',
      CLAIMS,
      'GET',
      'http://api.example.com/x',
      '--jwt',
      await token({ sub: 'bob' }),
      '-H',
      'x-jwt-team: platform',
    );
    expect(forged).toMatch(/route +default\.api\/1: .*header x-jwt-team "platform"/);
    expect(forged).toMatch(/route +default\.api\/2 now/);
    expect(forged).toMatch(/answer: upstream \(cluster default-app-8080 answers\)/);
  },
  SLOW,
);

test(
  'a claim the token lacks sets no header',
  async () => {
    const out = await sluice(
      'bin/sluice.js',
      'explain',
      '-f',
      CLAIMS,
      'GET',
      'http://api.example.com/x',
      '--jwt',
      await token({ sub: 'bob' }),
      '-H',
      'x-jwt-team: admins',
    );
    expect(out).toMatch(/claim org.team absent: no x-jwt-team header/);
    expect(out).toMatch(/headers set: x-jwt-sub: bob\n/);
    expect(out).not.toMatch(/x-jwt-team: admins/);
  },
  SLOW,
);

test(
  'on a route without JWT the client copy is removed all the same',
  async () => {
    const out = await sluice(
      'bin/sluice.js',
      'explain',
      '-f',
      CLAIMS,
      'GET',
      'http://api.example.com/health',
      '-H',
      'x-jwt-sub: mallory',
    );
    expect(out).toMatch(/header_mutation +removed x-jwt-sub/);
    expect(out).toMatch(/jwt_authn +not verifying: disabled on this route/);
    expect(out).toMatch(/answer: upstream/);
    // Another virtual host has no claim headers: its requests keep theirs.
    expect(
      await sluice(
        'bin/sluice.js',
        'explain',
        '-f',
        CLAIMS,
        'GET',
        'http://open.example.com/',
        '-H',
        'x-jwt-sub: anyone',
      ),
    ).toMatch(/header_mutation +no mutations here/);
  },
  SLOW,
);

test(
  'a nested claim matches the policy; a flat name with the same dots does not',
  async () => {
    const nested = await sluice(
      'bin/sluice.js',
      'explain',
      '-f',
      NESTED,
      'GET',
      'http://api.example.com/deploy',
      '--jwt',
      await token({ org: { team: 'platform', region: { name: 'eu' } } }),
    );
    expect(nested).toMatch(/rbac +allowed by policy platform-team/);
    expect(nested).toMatch(/nested claim org › team of provider demo "platform" is "platform"/);
    const flat = await sluice(
      'bin/sluice.js',
      'explain',
      '-f',
      NESTED,
      'GET',
      'http://api.example.com/deploy',
      '--jwt',
      await token({ 'org.team': 'platform', 'org.region.name': 'eu' }),
    );
    expect(flat).toMatch(/nested claim org › team of provider demo absent is not "platform"/);
    expect(flat).toMatch(/answer: 403 "RBAC: access denied"/);
    // Without a delimiter the dotted name is one claim, as written.
    expect(
      await sluice(
        'bin/sluice.js',
        'explain',
        '-f',
        NESTED,
        'GET',
        'http://api.example.com/',
        '--jwt',
        await token({ 'https://example.com/role': 'admin' }),
      ),
    ).toMatch(/rbac +allowed by policy namespaced-admin/);
  },
  SLOW,
);
