/**
 * The apiKeyAuth and basicAuth part of `npm run bench -- extauth`: Check
 * calls per second, p50/p99 and CPU per check of sluice-extauth at
 * concurrency 1, 16 and 64, next to a bare grpc-js handler doing the same
 * work in the same run: for an API key, the key's SHA-256 looked up among
 * the keys' and compared in constant time; for Basic credentials, the
 * APR1-MD5 hash of the password (apache-md5, as the sidecar uses) compared
 * in constant time with the user's; both answer OK with x-user-id and the
 * credential header removed, as the sidecar does. The password hash is made
 * by `openssl passwd -apr1`. Rounds are interleaved, and the ratio is the
 * median of the rounds' ratios (each pair saw the same machine).
 */
import * as grpc from '@grpc/grpc-js';
import { createHash, timingSafeEqual } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { authorizationService, messageType } from '../extauth-server/protos.js';
import { basic, envoyCheckRequest } from '../harness/extauth-check.js';
import {
  fmt,
  grpcFrame,
  h2load,
  median,
  medianOf,
  nodeClient,
  sidecarPeer,
  startProcess,
  type Figures,
  type LoadGenerator,
  type Peer,
} from './check-load.js';

const CONCURRENCY = [1, 16, 64];
const PEER_ENV = 'SLUICE_BENCH_KIND_PEER';
/** As many keys as a team hands out; the one presented is among the last. */
const KEY_COUNT = 200;
const keyOf = (i: number) => `bench-key-${i.toString().padStart(4, '0')}-7f00d1e4c5a2b9`;
const PRESENTED_KEY = keyOf(KEY_COUNT - 7);
const USER = 'alice';
const PASSWORD = 'alice-pw';

interface Case {
  name: string;
  /** sluice.extauth.v1.AuthConfig of the sidecar. */
  config: (hash: { salt: string; hashedPassword: string }) => unknown;
  headers: Record<string, string>;
}

const CASES: Case[] = [
  {
    name: 'apiKeyAuth',
    config: () => ({
      name: 'bench.keys',
      configs: [
        {
          api_key_auth: {
            header_name: 'api-key',
            keys: Array.from({ length: KEY_COUNT }, (_, i) => ({ key: keyOf(i), user: `key-${i}` })),
          },
        },
      ],
    }),
    headers: { 'api-key': PRESENTED_KEY },
  },
  {
    name: 'basicAuth',
    config: (hash) => ({
      name: 'bench.basic',
      configs: [{ basic_auth: { realm: 'bench', users: { [USER]: hash } } }],
    }),
    headers: { authorization: basic(USER, PASSWORD) },
  },
];

/** `openssl passwd -apr1`: the salt and hash Gloo's apr.users holds. */
function apr1(password: string): { salt: string; hashedPassword: string } {
  const [, , salt, hashedPassword] = execFileSync('openssl', ['passwd', '-apr1', password], { encoding: 'utf8' })
    .trim()
    .split('$');
  return { salt: salt!, hashedPassword: hashedPassword! };
}

type Request = { attributes: { request: { http: { headers: Record<string, string> } } } };

const ok = (user: string, remove: string) => ({
  status: { code: 0 },
  ok_response: { headers: [{ header: { key: 'x-user-id', value: user } }], headers_to_remove: [remove] },
});
const denied = { status: { code: 16 }, denied_response: { status: { code: 'Unauthorized' } } };

/** The bare handlers: the same checks, nothing else (argv[2]: the case, argv[3]: the salt and hash as JSON). */
function runPeer(kind: string): void {
  let failed = 0;
  let check: (headers: Record<string, string>) => unknown;
  if (kind === 'apiKeyAuth') {
    const digest = (key: string) => createHash('sha256').update(key, 'utf8').digest();
    const keys = new Map(
      Array.from({ length: KEY_COUNT }, (_, i) => [digest(keyOf(i)).toString('base64'), { d: digest(keyOf(i)), i }]),
    );
    check = (headers) => {
      const presented = headers['api-key'];
      if (!presented) return denied;
      const d = digest(presented);
      const k = keys.get(d.toString('base64'));
      return k && timingSafeEqual(k.d, d) ? ok(`key-${k.i}`, 'api-key') : denied;
    };
  } else {
    const aprMd5 = createRequire(import.meta.url)('apache-md5') as (password: string, salt: string) => string;
    const stored = JSON.parse(process.argv[3]!) as { salt: string; hashedPassword: string };
    const expected = Buffer.from(`$apr1$${stored.salt}$${stored.hashedPassword}`, 'latin1');
    check = (headers) => {
      const auth = headers.authorization ?? '';
      if (!auth.startsWith('Basic ')) return denied;
      const decoded = Buffer.from(auth.slice(6), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (decoded.slice(0, colon) !== USER) return denied;
      const hashed = Buffer.from(aprMd5(decoded.slice(colon + 1), `$apr1$${stored.salt}$`), 'latin1');
      return hashed.length === expected.length && timingSafeEqual(hashed, expected)
        ? ok(USER, 'authorization')
        : denied;
    };
  }
  process.on('SIGTERM', () => {
    console.log(JSON.stringify({ failed }));
    process.exit(0);
  });
  const server = new grpc.Server();
  server.addService(authorizationService(), {
    Check: (call: grpc.ServerUnaryCall<Request, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      const answer = check(call.request.attributes.request.http.headers);
      if (answer === denied) failed++;
      cb(null, answer);
    },
  });
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) throw err;
    console.log(JSON.stringify({ port }));
  });
}

if (process.env[PEER_ENV]) runPeer(process.env[PEER_ENV]!);

async function barePeer(kind: string, stored: string, load: LoadGenerator, concurrency: number): Promise<Peer> {
  const server = await startProcess(fileURLToPath(import.meta.url), [kind, stored], { [PEER_ENV]: kind });
  return {
    label: 'bare grpc-js',
    round: (ms, first) => load.run(server.port, server.pid, concurrency, ms, first),
    async stop() {
      const failed = Number(/"failed":(\d+)/.exec(await server.stop())?.[1] ?? 0);
      if (failed) throw new Error(`bare ${kind} peer: ${failed} checks failed`);
    },
  };
}

export async function run(args: string[]): Promise<void> {
  const flag = (name: string, fallback: number) =>
    Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
  const ms = flag('duration-ms', 1500);
  const rounds = flag('rounds', 9);
  const hash = apr1(PASSWORD);
  for (const c of CASES) {
    const configRef = (c.config(hash) as { name: string }).name;
    const frame = grpcFrame(
      messageType('envoy.service.auth.v3.CheckRequest').serialize(envoyCheckRequest(configRef, c.headers)),
    );
    const load = (await h2load(frame)) ?? nodeClient(frame);
    console.log(`${c.name}: ${rounds} interleaved rounds of ${ms} ms, median round shown`);
    for (const concurrency of CONCURRENCY) {
      const peers = [
        await sidecarPeer([c.config(hash)], load, concurrency),
        await barePeer(c.name, JSON.stringify(hash), load, concurrency),
      ];
      const results = new Map<string, Figures[]>(peers.map((p) => [p.label, []]));
      try {
        for (let r = 0; r < rounds; r++) for (const p of peers) results.get(p.label)!.push(await p.round(ms, r === 0));
      } finally {
        for (const p of peers) await p.stop();
      }
      console.log(`  c=${concurrency}`);
      for (const [label, figures] of results) console.log(`    ${label.padEnd(13)}${fmt(median(figures))}`);
      const ours = results.get('extauth')!;
      const bare = results.get('bare grpc-js')!;
      const pairs = (pick: (f: Figures) => number) => medianOf(ours.map((f, r) => pick(f) / pick(bare[r]!)));
      const throughput = 100 * pairs((f) => f.perSecond);
      const cpu = 100 * (pairs((f) => f.cpuPerOp) - 1);
      console.log(
        `    ${c.name} extauth vs bare grpc-js handler: throughput ${throughput.toFixed(1)}% (target >= 90%: ${throughput >= 90 ? 'met' : 'NOT met'}), CPU per check ${cpu >= 0 ? '+' : ''}${cpu.toFixed(1)}%; median of ${rounds} paired rounds`,
      );
    }
  }
}
