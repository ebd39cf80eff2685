/**
 * slapd killed and restarted under a steady stream of Checks: while the
 * directory is down no answer is OK (each is a 5xx, or the right denial);
 * once it is back the answers are right again. Real slapd and sidecar; the
 * stream's pace is whatever the machine gives, nothing is timed.
 */
import { DEFAULT_POOL } from '../../extauth-server/config.js';
import { startExtauth, type RunningExtauth } from '../../extauth-server/server.js';
import { startSlapd, groupDn, USER_DN_TEMPLATE, type Slapd } from '../../harness/slapd.js';
import { basic, writeConfig } from '../../harness/extauth-check.js';
import { checker, httpStatus, type Checker } from '../extauth/helpers.js';
import { testLogger } from '../../harness/log-check.js';

let slapd: Slapd;
let sidecar: RunningExtauth;
let check: Checker;

beforeAll(async () => {
  slapd = await startSlapd();
  const config = await writeConfig([
    {
      name: 'default.ldap',
      configs: [
        { ldap: { address: slapd.url, user_dn_template: USER_DN_TEMPLATE, allowed_groups: [groupDn('developers')] } },
      ],
    },
  ]);
  sidecar = await startExtauth({
    config,
    nodeId: 'faults',
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    // A stopped slapd refuses connections at once; long timeouts keep a machine busy with other tests from turning a
    // slow answer while the directory is up into a 503.
    poolDefaults: { ...DEFAULT_POOL, connectTimeoutMs: 30_000, operationTimeoutMs: 30_000 },
    logger: testLogger(),
  });
  check = checker(sidecar.port);
});

afterAll(async () => {
  check?.close();
  await sidecar?.close();
  await slapd?.close();
});

/** Who asks, and the right answer while the directory is up. */
const CASES: Array<{ who: string; headers: Record<string, string>; right: number }> = [
  { who: 'alice (developer)', headers: { authorization: basic('alice', 'alice-pw') }, right: 200 },
  { who: 'bob (not a developer)', headers: { authorization: basic('bob', 'bob-pw') }, right: 403 },
  { who: 'alice, wrong password', headers: { authorization: basic('alice', 'nope') }, right: 401 },
  { who: 'no credentials', headers: {}, right: 401 },
];

/** 'changing': slapd being stopped or started; those answers are not judged. */
type Phase = 'up' | 'down' | 'changing';

test('no OK while slapd is down, right answers once it is back', async () => {
  let phase: Phase = 'up';
  let running = true;
  const answers: Array<{ phase: Phase; who: string; right: number; got: number }> = [];
  // Four streams of Checks, one per case, each sending its next Check when the last is answered.
  const streams = CASES.map(async ({ who, headers, right }) => {
    while (running) {
      const sentIn = phase;
      const got = httpStatus(await check('default.ldap', headers));
      // An answer counts for the outage only if its Check was sent and answered while slapd was down.
      answers.push({ phase: sentIn === phase ? phase : 'changing', who, right, got });
    }
  });
  const count = (p: Phase) => answers.filter((a) => a.phase === p).length;
  const waitFor = async (p: Phase, n: number) => {
    while (count(p) < n) await new Promise((r) => setImmediate(r));
  };

  await waitFor('up', 20);
  phase = 'changing';
  await slapd.stop();
  phase = 'down';
  await waitFor('down', 40);
  phase = 'changing';
  await slapd.start();
  // Back: wait until every case has been answered right once more, then some more rounds.
  const backFrom = answers.length;
  const rightAgain = () =>
    CASES.every((c) => answers.slice(backFrom).some((a) => a.who === c.who && a.got === c.right));
  while (!rightAgain()) await new Promise((r) => setImmediate(r));
  phase = 'up';
  const upFrom = answers.length;
  while (answers.length < upFrom + 20) await new Promise((r) => setImmediate(r));
  running = false;
  await Promise.all(streams);

  const down = answers.filter((a) => a.phase === 'down');
  expect(down.length).toBeGreaterThanOrEqual(40);
  expect(down.filter((a) => a.got === 200)).toEqual([]);
  // Each is a 5xx (the directory unreachable) or the decision needing no directory (no credentials: 401).
  expect(down.filter((a) => !(a.got >= 500 || a.got === a.right))).toEqual([]);
  expect(down.some((a) => a.got === 503)).toBe(true);
  const after = answers.slice(upFrom).filter((a) => a.phase === 'up');
  expect(after.filter((a) => a.got !== a.right)).toEqual([]);
  expect(answers.slice(0, backFrom).filter((a) => a.phase === 'up' && a.got !== a.right)).toEqual([]);
});
