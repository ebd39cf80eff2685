/**
 * Route delegation through the real `sluice explain` (golden/gloo-delegation):
 * a request reaches the route a RouteTable two levels down wrote, with the
 * header it inherited as a condition and the options it inherited applied.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const INPUT = 'golden/gloo-delegation/input';

async function explain(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['bin/sluice.js', 'explain', '-f', INPUT, ...args]).catch(
    (e: { stdout: string }) => ({ stdout: e.stdout }),
  );
  return stdout;
}

test('a delegated route answers with its own upstream, the inherited header match and the inherited options', async () => {
  const v2 = await explain('GET', 'http://store.example.com/api/v2/users', '-H', 'x-version: 2');
  // The route names the RouteTable two levels down that wrote it.
  expect(v2).toMatch(
    /route +shop\.store\/1 \(RouteTable team2\/api-v2\): path "\/api\/v2\/users" is "\/api\/v2\/users", header x-version "2" is "2"\n/,
  );
  expect(v2).toMatch(/destination +cluster users/);
  expect(v2).toMatch(/timeout 5s/);
  expect(v2).toMatch(/headers set: x-delegated-by: store/);
  // Without the header the delegating matcher asked for, the RouteTable's routes do not match.
  const without = await explain('GET', 'http://store.example.com/api/v2/users');
  expect(without).toMatch(/route +shop\.store\/\d+: path "\/api\/v2\/users" starts with prefix "\/"\n/);
  expect(without).toMatch(/destination +cluster web/);
  // Equal weights: the exact route sorts before the broader prefixes of the other table.
  const tie = await explain('GET', 'http://store.example.com/tie/x');
  expect(tie).toMatch(/route +shop\.store\/\d+ \(RouteTable [a-z0-9-]+\/[a-z0-9-]+\): path "\/tie\/x" is "\/tie\/x"\n/);
  expect(tie).toMatch(/direct response 200/);
});

test("explain names the route by Gloo's route names (golden/gloo-route-names)", async () => {
  const run2 = (url: string) =>
    run(process.execPath, ['bin/sluice.js', 'explain', '-f', 'golden/gloo-route-names/input', 'GET', url]).then(
      (r) => r.stdout,
    );
  expect(await run2('http://rail.example/tickets/refunds/7')).toMatch(
    /route +rail\.rail\/2:tickets\/refunds \(RouteTable rail\/tickets\): path "\/tickets\/refunds\/7" starts with prefix "\/tickets\/refunds"\n/,
  );
  expect(await run2('http://rail.example/price')).toMatch(
    /route +rail\.rail\/1:fare-quote: path "\/price" starts with prefix "\/price"\n/,
  );
  expect(await run2('http://rail.example/other')).toMatch(/route +rail\.rail\/4: /);
});
