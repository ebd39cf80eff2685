/**
 * Gloo's tokenSource and keepToken through the real `sluice explain`
 * (golden/jwt-token-source): a token in the configured header is verified
 * and kept for the upstream; in Authorization it is not looked at.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const INPUT = 'golden/jwt-token-source/input';

async function sluice(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, args).catch((e: { stdout: string }) => ({ stdout: e.stdout }));
  return stdout;
}

test('the token is read where tokenSource says, and only there', async () => {
  // Signed with the examples' demo key, which the golden's provider trusts.
  const token = (await sluice('scripts/demo-token.mjs')).trim().split('\n').pop()!;
  const fromHeader = await sluice(
    'bin/sluice.js',
    'explain',
    '-f',
    INPUT,
    'GET',
    'http://api.example.com/x',
    '-H',
    `x-token: ${token}`,
  );
  expect(fromHeader).toMatch(/jwt_authn +token accepted\n/);
  expect(fromHeader).not.toMatch(/x-token removed/);
  expect(fromHeader).toMatch(/answer: upstream/);
  expect(
    await sluice('bin/sluice.js', 'explain', '-f', INPUT, 'GET', `http://api.example.com/x?token=${token}`),
  ).toMatch(/answer: upstream/);
  expect(
    await sluice('bin/sluice.js', 'explain', '-f', INPUT, 'GET', 'http://api.example.com/x', '--jwt', token),
  ).toMatch(/answer: 401 "Jwt is missing"/);
});
