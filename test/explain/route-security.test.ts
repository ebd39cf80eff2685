/**
 * Gloo's per-route security through the real `sluice explain`: a route that
 * turns JWT and RBAC off answers without a token while its neighbour asks for
 * one, a route with extauth disabled skips the sidecar, and a route with its
 * own AuthConfig sends that config_ref (golden/gloo-route-security).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const INPUT = 'golden/gloo-route-security/input';

async function explain(url: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['bin/sluice.js', 'explain', '-f', INPUT, 'GET', url]).catch(
    (e: { stdout: string }) => ({ stdout: e.stdout }),
  );
  return stdout;
}

test('jwt and rbac disabled on one route: it is served without a token, the next route is not', async () => {
  const open = await explain('http://api.example.com/public/x');
  expect(open).toMatch(/jwt_authn +not verifying: disabled on this route/);
  expect(open).toMatch(/rbac +no policies on this route/);
  expect(open).toMatch(/answer: upstream \(cluster shop-app-8080/);
  expect(await explain('http://api.example.com/other')).toMatch(/answer: 401 "Jwt is missing"/);
});

test('extauth disabled on a route skips the sidecar; another AuthConfig on a route is the one asked', async () => {
  const health = await explain('http://shop.example.com/healthz');
  expect(health).toMatch(/ext_authz +disabled on this route/);
  expect(health).toMatch(/answer: upstream/);
  expect(await explain('http://shop.example.com/admin')).toMatch(/realm="shop\.admins"/);
  expect(await explain('http://shop.example.com/orders')).toMatch(/realm="shop\.staff"/);
});
