/**
 * `npm run bench -- extauth`: Check calls per second and p50/p99 latency at
 * concurrency 1, 16 and 64 against a real slapd, next to a raw ldapts bind +
 * base search loop doing the same LDAP work at the same concurrency (the
 * floor of the issue's target). Both sides get the same number of LDAP
 * connections (the sidecar's pool max is set to the concurrency); a last row
 * shows the default pool (max 5) at concurrency 64.
 *
 * Load generator: h2load (nghttp2, Debian's `nghttp2-client`) over one HTTP/2
 * connection with N concurrent streams, as Envoy's C++ client calls its
 * ext_authz cluster; without h2load, a hand-framed node:http2 client, which
 * costs the shared CPUs far more per call. Every Check is verified: a call
 * the client saw fail, or any decision other than OK in the sidecar's
 * checks_total, is counted as failed.
 *
 * Three more peers, each in its own process: "grpc-js + ldapts" is the
 * least any server on the project's stack can do (the same bind + search in
 * a bare grpc-js handler: no configuration, pool, metrics or checks, the
 * same ldapts client options);
 * "http2 + ldapts" is the same without grpc-js (node:http2, gRPC framing by
 * hand), the least any Node server can do; "no-op Check" is gRPC alone
 * without LDAP. Rounds are interleaved and the median
 * round is shown, as this machine's speed drifts during a run. CPU per
 * operation is the measured side's own (user + system, all threads).
 * apiKeyAuth and basicAuth follow (./extauth-kinds.ts), then the OIDC session check (./extauth-oidc.ts); --only=ldap, kinds or oidc runs one part alone.
 * Flags: --duration-ms=N (per round, default 1500), --rounds=N (default 9:
 * the machine's speed drifts, and the median of many short pairs is steadier
 * than of a few long ones). Each server is warmed once, before its first round.
 */
import * as grpc from '@grpc/grpc-js';
import http2 from 'node:http2';
import { Client } from 'ldapts';
import { fileURLToPath } from 'node:url';
import { authorizationService, messageType } from '../extauth-server/protos.js';
import { DEFAULT_POOL } from '../extauth-server/config.js';
import { startSlapd, groupDn, userDn, USER_DN_TEMPLATE, type Slapd } from '../harness/slapd.js';
import { basic, envoyCheckRequest } from '../harness/extauth-check.js';
import {
  closedLoop,
  fmt,
  grpcFrame,
  h2load,
  median,
  medianOf,
  nodeClient,
  ownCpu,
  sidecarPeer,
  startProcess,
  type Figures,
  type LoadGenerator,
  type Peer,
} from './check-load.js';
import { run as runKinds } from './extauth-kinds.js';
import { runOidcSession } from './extauth-oidc.js';
const CONCURRENCY = [1, 16, 64];
const USER = 'alice';
const PASSWORD = 'alice-pw';
const ALLOWED_GROUP = groupDn('developers').toLowerCase();

/** The LDAP work of one check, the same for the raw loop and the bare peers: user bind, base search, membership. */
async function bindAndSearch(client: Client, password: string): Promise<boolean> {
  const dn = userDn(USER);
  await client.bind(dn, password);
  const { searchEntries } = await client.search(dn, {
    scope: 'base',
    filter: '(uid=*)',
    attributes: ['memberOf'],
    sizeLimit: 1,
  });
  const groups = searchEntries[0]?.memberOf;
  return (Array.isArray(groups) ? groups : [groups]).some((g) => String(g).toLowerCase() === ALLOWED_GROUP);
}

/**
 * The ldapts client of the raw loop and the bare peers, as a server would
 * configure it, with the sidecar's default timeouts per operation and per
 * connect (a hung directory fails a check instead of holding it).
 */
const ldapClient = (url: string) =>
  new Client({ url, timeout: DEFAULT_POOL.operationTimeoutMs, connectTimeout: DEFAULT_POOL.connectTimeoutMs });

/** The raw loop: `concurrency` ldapts clients doing bind + base search back to back, in this process. */
async function rawLoop(slapd: Slapd, concurrency: number, ms: number): Promise<Figures> {
  const clients = Array.from({ length: concurrency }, () => ldapClient(slapd.url));
  try {
    return await closedLoop(concurrency, ms, ownCpu, (w) => bindAndSearch(clients[w]!, PASSWORD));
  } finally {
    await Promise.all(clients.map((c) => c.unbind().catch(() => undefined)));
  }
}

const PEER_ENV = 'SLUICE_BENCH_PEER';

type CheckRequestShape = { attributes: { request: { http: { headers: Record<string, string> } } } };

/**
 * The raw loop's bind + search for one CheckRequest, for the bare peers: at
 * most `limit` ldapts clients, calls beyond that wait for one.
 */
function bareLdapCheck(url: string, limit: number): (request: CheckRequestShape) => Promise<boolean> {
  let clients = 0;
  const idle: Client[] = [];
  const waiting: ((c: Client) => void)[] = [];
  const acquire = (): Promise<Client> => {
    const free = idle.pop();
    if (free) return Promise.resolve(free);
    if (clients < limit) {
      clients++;
      return Promise.resolve(ldapClient(url));
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  const release = (c: Client) => (waiting.length ? waiting.shift()!(c) : idle.push(c));
  return async (request) => {
    const password = Buffer.from(
      request.attributes.request.http.headers.authorization!.slice('Basic '.length),
      'base64',
    )
      .toString()
      .split(':')[1]!;
    const client = await acquire();
    try {
      return await bindAndSearch(client, password);
    } finally {
      release(client);
    }
  };
}

/**
 * The peers, when this module runs as a child process with PEER_ENV set
 * (LDAP URL in argv[2], connection limit in argv[3]):
 * - `noop`: grpc-js, answers OK at once;
 * - `grpc`: grpc-js handler doing the bare LDAP check;
 * - `http2`: node:http2 without grpc-js, gRPC framing by hand (the response is
 *   encoded once), the same LDAP check.
 * Each prints `{"port":N}` when listening and `{"failed":N}` on SIGTERM.
 */
function runPeer(kind: string): void {
  let failed = 0;
  const check = bareLdapCheck(process.argv[2]!, Number(process.argv[3]));
  const listening = (port: number) => console.log(JSON.stringify({ port }));
  process.on('SIGTERM', () => {
    console.log(JSON.stringify({ failed }));
    process.exit(0);
  });
  if (kind === 'http2') {
    const requestType = messageType('envoy.service.auth.v3.CheckRequest');
    const ok = grpcFrame(messageType('envoy.service.auth.v3.CheckResponse').serialize({ status: { code: 0 } }));
    const server = http2.createServer();
    server.on('stream', (stream) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        check(requestType.deserialize(Buffer.concat(chunks).subarray(5)) as CheckRequestShape)
          .catch(() => false)
          .then((allowed) => {
            if (!allowed) failed++;
            if (stream.destroyed) return; // the client gave up (h2load's duration ended)
            stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
            stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': allowed ? '0' : '13' }));
            stream.end(ok);
          });
      });
    });
    server.listen(0, '127.0.0.1', () => listening((server.address() as { port: number }).port));
    return;
  }
  const grpcCheck: grpc.handleUnaryCall<CheckRequestShape, unknown> = (call, cb) => {
    check(call.request).then(
      (allowed) => {
        if (!allowed) failed++;
        cb(null, { status: { code: allowed ? 0 : 7 } });
      },
      (err: Error) => {
        failed++;
        cb(err);
      },
    );
  };
  const noop: grpc.handleUnaryCall<unknown, unknown> = (_call, cb) => cb(null, { status: { code: 0 } });
  const server = new grpc.Server();
  server.addService(authorizationService(), { Check: kind === 'grpc' ? grpcCheck : noop });
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) throw err;
    listening(port);
  });
}

if (process.env[PEER_ENV]) runPeer(process.env[PEER_ENV]!);

/** The gRPC frame of the CheckRequest Envoy sends for alice (encoded once). */
function checkFrame(): Buffer {
  return grpcFrame(
    messageType('envoy.service.auth.v3.CheckRequest').serialize(
      envoyCheckRequest('bench.users', { authorization: basic(USER, PASSWORD) }),
    ),
  );
}

async function ldapSidecarPeer(slapd: Slapd, load: LoadGenerator, concurrency: number, poolMax: number): Promise<Peer> {
  return sidecarPeer(
    [
      {
        name: 'bench.users',
        configs: [
          {
            ldap: {
              address: slapd.url,
              user_dn_template: USER_DN_TEMPLATE,
              allowed_groups: [groupDn('developers')],
              pool: { initial_size: poolMax, max_size: poolMax },
            },
          },
        ],
      },
    ],
    load,
    concurrency,
  );
}

async function childPeer(
  label: string,
  kind: 'noop' | 'grpc' | 'http2',
  load: LoadGenerator,
  concurrency: number,
  args: string[] = [],
): Promise<Peer> {
  const server = await startProcess(fileURLToPath(import.meta.url), args, { [PEER_ENV]: kind });
  return {
    label,
    round: (ms, first) => load.run(server.port, server.pid, concurrency, ms, first),
    async stop() {
      const failed = Number(/"failed":(\d+)/.exec(await server.stop())?.[1] ?? 0);
      if (failed) throw new Error(`${label} peer: ${failed} checks failed`);
    },
  };
}

export async function run(args: string[]): Promise<void> {
  const flag = (name: string, fallback: number) =>
    Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
  const ms = flag('duration-ms', 1500);
  const rounds = flag('rounds', 9);
  // --only=ldap|kinds|oidc: one part alone (the LDAP rows take minutes); kinds is apiKeyAuth and basicAuth (./extauth-kinds.ts), oidc the session check (./extauth-oidc.ts).
  const only = args.find((a) => a.startsWith('--only='))?.split('=')[1];
  if (!only || only === 'ldap') await runLdap(ms, rounds);
  if (!only || only === 'kinds') await runKinds(args);
  if (!only || only === 'oidc') await runOidcSession(ms, rounds);
}

async function runLdap(ms: number, rounds: number): Promise<void> {
  const load = (await h2load(checkFrame())) ?? nodeClient(checkFrame());
  const slapd = await startSlapd({ statsLog: false });
  try {
    console.log(
      `slapd ${slapd.url}; load generator ${load.name}; ${rounds} interleaved rounds of ${ms} ms, median round shown`,
    );
    const rows: [string, number, number][] = CONCURRENCY.map((c) => [`c=${c}`, c, c]);
    rows.push([`c=64, default pool (max ${DEFAULT_POOL.maxSize})`, 64, DEFAULT_POOL.maxSize]);
    for (const [label, c, poolMax] of rows) {
      const peers = [
        await ldapSidecarPeer(slapd, load, c, poolMax),
        await childPeer('grpc-js + ldapts', 'grpc', load, c, [slapd.url, String(poolMax)]),
        await childPeer('http2 + ldapts', 'http2', load, c, [slapd.url, String(poolMax)]),
        await childPeer('no-op Check', 'noop', load, c, [slapd.url, String(poolMax)]),
      ];
      const results = new Map<string, Figures[]>([
        ['raw ldapts', []],
        ...peers.map((p): [string, Figures[]] => [p.label, []]),
      ]);
      try {
        for (let r = 0; r < rounds; r++) {
          results.get('raw ldapts')!.push(await rawLoop(slapd, Math.min(c, poolMax), ms));
          for (const p of peers) results.get(p.label)!.push(await p.round(ms, r === 0));
        }
      } finally {
        for (const p of peers) await p.stop();
      }
      const [raw, ours, bareGrpc, bareHttp2] = ['raw ldapts', 'extauth', 'grpc-js + ldapts', 'http2 + ldapts'].map(
        (k) => median(results.get(k)!),
      ) as [Figures, Figures, Figures, Figures];
      const share = (f: Figures) => `${((100 * f.perSecond) / raw.perSecond).toFixed(1)}%`;
      console.log(`${label}${poolMax < c ? ` (raw with ${poolMax} workers)` : ''}`);
      const notes: Record<string, string> = {
        'grpc-js + ldapts': '(bare handler, same LDAP work)',
        'http2 + ldapts': '(no grpc-js, same LDAP work)',
        'no-op Check': '(gRPC alone, no LDAP)',
      };
      for (const [k, v] of results) console.log(`  ${k.padEnd(17)}${fmt(median(v))}   ${notes[k] ?? ''}`);
      console.log(
        `  extauth: ${share(ours)} of raw throughput (bare grpc-js: ${share(bareGrpc)}, bare http2: ${share(bareHttp2)}); added p50 ${(ours.p50 - raw.p50).toFixed(2)} ms, p99 ${(ours.p99 - raw.p99).toFixed(2)} ms`,
      );
      // Against the bare handler, round by round (the rounds are interleaved, so each pair saw the same machine), median of the pairs.
      const pairs = (pick: (f: Figures) => number) =>
        medianOf(results.get('extauth')!.map((f, r) => pick(f) / pick(results.get('grpc-js + ldapts')![r]!)));
      const throughput = 100 * pairs((f) => f.perSecond);
      const cpu = 100 * (pairs((f) => f.cpuPerOp) - 1);
      console.log(
        `  extauth vs bare grpc-js handler: throughput ${throughput.toFixed(1)}% (target >= 95%: ${throughput >= 95 ? 'met' : 'NOT met'}), CPU per check ${cpu >= 0 ? '+' : ''}${cpu.toFixed(1)}% (target <= +10%: ${cpu <= 10 ? 'met' : 'NOT met'}); median of ${rounds} paired rounds`,
      );
    }
  } finally {
    await slapd.close();
  }
}
