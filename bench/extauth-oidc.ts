/**
 * The OIDC session check of `npm run bench -- extauth`: a request whose
 * session cookie is present and valid (an oauth2.oidcAuthorizationCode
 * config, the session sealed in the cookie with the configured key), the
 * sidecar against a bare grpc-js handler doing the same work in its own
 * process: the cookie read from the Cookie header, opened (AES-256-GCM, the
 * sidecar's own sealing code), its JSON read and its expiry checked, the ID
 * token, access token and user sent upstream as headers. Rounds interleaved,
 * the median round shown, and the ratio as the median of the paired rounds.
 * The provider is never asked (a live session needs none): its issuer is a
 * closed port.
 */
import * as grpc from '@grpc/grpc-js';
import { fileURLToPath } from 'node:url';
import net from 'node:net';
import { authorizationService, messageType } from '../extauth-server/protos.js';
import { sealer } from '../extauth-server/modules/oidc/seal.js';
import { envoyCheckRequest } from '../harness/extauth-check.js';
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

const PEER_ENV = 'SLUICE_BENCH_OIDC_PEER';
const KEY = 'bench-cookie-key-0123456789abcde';
const CONCURRENCY = [1, 16, 64];
const COOKIE = '__session';

/** A session as the sidecar seals it: tokens of realistic sizes, valid for a day. */
function sessionCookie(): string {
  const idToken = [
    Buffer.from(JSON.stringify({ alg: 'RS256', kid: 'k1' })).toString('base64url'),
    Buffer.from(
      JSON.stringify({
        iss: 'https://idp.example.org',
        sub: 'alice',
        aud: 'app',
        email: 'alice@example.org',
        exp: 2e9,
        iat: 1.7e9,
        nonce: 'n'.repeat(43),
      }),
    ).toString('base64url'),
    'S'.repeat(342),
  ].join('.');
  const stored = {
    idToken,
    accessToken: 'A'.repeat(43),
    refreshToken: 'R'.repeat(43),
    expiresAt: Date.now() + 24 * 3600_000,
    claims: { sub: 'alice', email: 'alice@example.org' },
  };
  return sealer([Buffer.from(KEY)]).seal('session', JSON.stringify(stored));
}

function cookieOf(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The bare peer, when this module runs as a child process with PEER_ENV set. */
function runBarePeer(): void {
  let failed = 0;
  const seal = sealer([Buffer.from(KEY)]);
  process.on('SIGTERM', () => {
    console.log(JSON.stringify({ failed }));
    process.exit(0);
  });
  type Request = { attributes?: { request?: { http?: { headers?: Record<string, string> } } } };
  const check: grpc.handleUnaryCall<Request, unknown> = (call, cb) => {
    const text = cookieOf(call.request.attributes?.request?.http?.headers?.cookie);
    const opened = text && seal.open('session', text);
    const s = opened
      ? (JSON.parse(opened) as { idToken: string; accessToken: string; expiresAt: number; claims: { sub: string } })
      : undefined;
    if (!s || s.expiresAt <= Date.now()) {
      failed++;
      return cb(null, { status: { code: 7 }, denied_response: { status: { code: 302 } } });
    }
    const header = (key: string, value: string) => ({
      header: { key, value },
      append_action: 'OVERWRITE_IF_EXISTS_OR_ADD',
    });
    cb(null, {
      status: { code: 0 },
      ok_response: {
        headers: [
          header('x-id-token', s.idToken),
          header('authorization', `Bearer ${s.accessToken}`),
          header('x-user', s.claims.sub),
        ],
      },
    });
  };
  const server = new grpc.Server();
  server.addService(authorizationService(), { Check: check });
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) throw err;
    console.log(JSON.stringify({ port }));
  });
}

if (process.env[PEER_ENV]) runBarePeer();

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

async function oidcSidecarPeer(load: LoadGenerator, concurrency: number): Promise<Peer> {
  return sidecarPeer(
    [
      {
        name: 'bench.oidc',
        configs: [
          {
            oauth2: {
              oidc_authorization_code: {
                client_id: 'app',
                client_secret: 'secret',
                issuer_url: `http://127.0.0.1:${await closedPort()}`,
                app_url: 'https://app.example.org',
                callback_path: '/callback',
                scopes: ['openid'],
                session: {
                  cookie: {
                    name: COOKIE,
                    max_age_seconds: 2592000,
                    secure: true,
                    http_only: true,
                    path: '/',
                    same_site: 'Lax',
                  },
                  cipher_keys: [KEY],
                },
                headers: {
                  id_token_header: 'x-id-token',
                  access_token_header: 'authorization',
                  use_bearer_schema: true,
                },
                identity_claims_to_headers: [{ claim: 'sub', header: 'x-user' }],
              },
            },
          },
        ],
      },
    ],
    load,
    concurrency,
  );
}

async function barePeer(load: LoadGenerator, concurrency: number): Promise<Peer> {
  const server = await startProcess(fileURLToPath(import.meta.url), [], { [PEER_ENV]: '1' });
  return {
    label: 'bare',
    round: (ms, first) => load.run(server.port, server.pid, concurrency, ms, first),
    async stop() {
      const failed = Number(/"failed":(\d+)/.exec(await server.stop())?.[1] ?? 0);
      if (failed) throw new Error(`bare OIDC peer: ${failed} checks failed`);
    },
  };
}

export async function runOidcSession(ms: number, rounds: number): Promise<void> {
  const frame = grpcFrame(
    messageType('envoy.service.auth.v3.CheckRequest').serialize(
      envoyCheckRequest(
        'bench.oidc',
        { ':path': '/pets', cookie: `${COOKIE}=${sessionCookie()}` },
        { host: 'app.example.org' },
      ),
    ),
  );
  const load = (await h2load(frame)) ?? nodeClient(frame);
  console.log(
    `OIDC session check (cookie present, valid); load generator ${load.name}; ${rounds} interleaved rounds of ${ms} ms`,
  );
  for (const c of CONCURRENCY) {
    const peers = [await oidcSidecarPeer(load, c), await barePeer(load, c)];
    const results = new Map<string, Figures[]>(peers.map((p) => [p.label, []]));
    try {
      for (let r = 0; r < rounds; r++) for (const p of peers) results.get(p.label)!.push(await p.round(ms, r === 0));
    } finally {
      for (const p of peers) await p.stop();
    }
    console.log(`c=${c}`);
    console.log(`  extauth (oidc)    ${fmt(median(results.get('extauth')!))}`);
    console.log(`  bare grpc-js      ${fmt(median(results.get('bare')!))}   (cookie opened, same headers)`);
    const pairs = (pick: (f: Figures) => number) =>
      medianOf(results.get('extauth')!.map((f, r) => pick(f) / pick(results.get('bare')![r]!)));
    const throughput = 100 * pairs((f) => f.perSecond);
    console.log(
      `  extauth vs bare: throughput ${throughput.toFixed(1)}% (target >= 90%: ${throughput >= 90 ? 'met' : 'NOT met'}), CPU per check ${(100 * (pairs((f) => f.cpuPerOp) - 1)).toFixed(1)}%; median of ${rounds} paired rounds`,
    );
  }
}
