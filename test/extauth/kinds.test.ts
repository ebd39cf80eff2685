/**
 * apiKeyAuth, basicAuth, passThroughAuth (gRPC and HTTP), opaServerAuth,
 * jwt and booleanExpr from AuthConfig resources to a decision: `sluice
 * compile`'s extauth.json drives the real sluice-extauth, asked over its
 * gRPC Check API as Envoy asks it. The real parts: password hashes made by
 * `openssl passwd -apr1` and `openssl dgst -sha1` now, API-key Secrets as
 * kubectl writes them (fixtures/apikey-secrets.yaml; compared with kubectl's
 * own output when kubectl is on PATH), a gRPC ext_authz server and an HTTP
 * auth service written here. OPA: a double of its Data API here (no opa
 * binary in the registries); ./opa.test.ts runs against a real `opa` when
 * one is on PATH.
 */
import * as grpc from '@grpc/grpc-js';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { authorizationService } from '../../extauth-server/protos.js';
import { type RunningExtauth } from '../../extauth-server/server.js';
import { basic } from '../../harness/extauth-check.js';
import {
  closedPort,
  header,
  httpStatus,
  type Checker,
  type CheckResponse,
  compileConfig,
  startSidecar,
} from './helpers.js';
import { opaDataApiDouble, type OpaServer } from './opa-double.js';

const FIXTURE_SECRETS = path.join(import.meta.dirname, 'fixtures', 'apikey-secrets.yaml');
/** The keys of the fixture's Secrets, as `kubectl create secret ... --from-literal=api-key=...` was given them. */
const KEYS = {
  infra: 'N2YwMDIxZTEtNGUzNS1jNzgzLTRkYjAtYjE2YzRkZGVmNjcy',
  ops: 'b3BzLWtleS0yMDI2LWJsdWUtZmlzaA',
  partner: 'cGFydG5lci1rZXktcmVkLW1vb24',
};
const PASSWORDS = { alice: 'alice-pw', josé: 'pässwörd', bob: 'bob-pw' };

/** `openssl passwd -apr1` of the password: Gloo's salt and hashedPassword ($apr1$SALT$HASH). */
function apr1(password: string): { salt: string; hashedPassword: string } {
  const out = execFileSync('openssl', ['passwd', '-apr1', password], { encoding: 'utf8' }).trim();
  const [, , salt, hashedPassword] = out.split('$');
  return { salt: salt!, hashedPassword: hashedPassword! };
}

/** `openssl dgst -sha1` of password followed by salt: Gloo's sha1 form. */
function sha1(password: string, salt: string): string {
  return execFileSync('openssl', ['dgst', '-sha1', '-r'], { input: password + salt, encoding: 'utf8' }).split(' ')[0]!;
}

/** A gRPC ext_authz server (envoy.service.auth.v3.Authorization) of a team, as the test's own code. */
interface TeamGrpc {
  port: number;
  requests: { headers: Record<string, string>; metadata: Record<string, unknown> }[];
  delayMs: number;
  close(): void;
}

async function teamGrpcServer(port = 0): Promise<TeamGrpc> {
  const server = new grpc.Server();
  const team: TeamGrpc = { port: 0, requests: [], delayMs: 0, close: () => server.forceShutdown() };
  server.addService(authorizationService(), {
    Check: (call: grpc.ServerUnaryCall<any, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const attrs = call.request.attributes;
      const headers = attrs.request.http.headers as Record<string, string>;
      team.requests.push({ headers, metadata: attrs.metadata_context?.filter_metadata ?? {} });
      const answer =
        headers['x-team-token'] === 'good'
          ? { status: { code: 0 }, ok_response: { headers: [{ header: { key: 'x-team-user', value: 'team-alice' } }] } }
          : {
              status: { code: 7 },
              denied_response: {
                status: { code: 'Forbidden' },
                headers: [{ header: { key: 'x-team-reason', value: 'bad token' } }],
                body: 'team says no',
              },
            };
      setTimeout(() => callback(null, answer), team.delayMs);
    },
  });
  team.port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port),
    ),
  );
  return team;
}

/** An HTTP auth service of a team: 200 for `authorization: Bearer good`, else 401 with a challenge; slow when asked to be. */
interface TeamHttp {
  port: number;
  requests: { path: string; headers: http.IncomingHttpHeaders; body: string }[];
  delayMs: number;
  close(): Promise<void>;
}

async function teamHttpServer(): Promise<TeamHttp> {
  const team: TeamHttp = { port: 0, requests: [], delayMs: 0, close: async () => undefined };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      team.requests.push({ path: req.url ?? '', headers: req.headers, body });
      setTimeout(() => {
        if (req.headers.authorization === 'Bearer good')
          res.writeHead(200, { 'x-auth-user': 'http-alice', 'x-not-allowed': 'secret-internal' }).end();
        else
          res
            .writeHead(401, { 'www-authenticate': 'Bearer realm="team"', 'x-not-allowed': 'secret-internal' })
            .end('no');
      }, team.delayMs);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  team.port = (server.address() as { port: number }).port;
  team.close = () => new Promise((r) => (server.closeAllConnections(), server.close(() => r())));
  return team;
}

let server: RunningExtauth;
let check: Checker;
let log: () => string;
let teamGrpc: TeamGrpc;
/** Stopped and started again by a test. */
let restartable: TeamGrpc;
let teamHttp: TeamHttp;
let opa: OpaServer;

const authConfig = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'enterprise.gloo.solo.io/v1',
  kind: 'AuthConfig',
  metadata: { name, namespace: 'default' },
  spec,
});

async function resources(): Promise<string> {
  const closed = await closedPort();
  const bob = { salt: 's4lt', hashedPassword: sha1(PASSWORDS.bob, 's4lt') };
  const users = { alice: apr1(PASSWORDS.alice), josé: apr1(PASSWORDS['josé']) };
  const grpcAt = (port: number) => `127.0.0.1:${port}`;
  const docs = [
    authConfig('keys', {
      configs: [
        {
          apiKeyAuth: {
            headerName: 'x-api-key',
            headersFromMetadataEntry: { 'x-user-email': { name: 'user-email', required: true } },
            k8sSecretApikeyStorage: { labelSelector: { team: 'infrastructure' } },
          },
        },
      ],
    }),
    authConfig('partner-keys', {
      configs: [{ apiKeyAuth: { apiKeySecretRefs: [{ name: 'partner-apikey', namespace: 'gloo-system' }] } }],
    }),
    authConfig('basic-apr', { configs: [{ basicAuth: { realm: 'staff', apr: { users } } }] }),
    authConfig('basic-sha1', {
      configs: [{ basicAuth: { realm: 'legacy', encryption: { sha1: {} }, userList: { users: { bob } } } }],
    }),
    authConfig('grpc', {
      configs: [
        {
          passThroughAuth: {
            grpc: { address: grpcAt(teamGrpc.port), connectionTimeout: '0.5s' },
            config: { customKey: 'customValue' },
          },
        },
      ],
    }),
    authConfig('grpc-restart', { configs: [{ passThroughAuth: { grpc: { address: grpcAt(restartable.port) } } }] }),
    authConfig('grpc-down', { configs: [{ passThroughAuth: { grpc: { address: grpcAt(closed) } } }] }),
    authConfig('grpc-down-allow', {
      configs: [{ passThroughAuth: { grpc: { address: grpcAt(closed) }, failureModeAllow: true } }],
    }),
    authConfig('http', {
      configs: [
        {
          passThroughAuth: {
            http: {
              url: `http://127.0.0.1:${teamHttp.port}/check`,
              connectionTimeout: '0.5s',
              request: { allowedHeaders: ['Authorization'], headersToAdd: { 'x-from': 'sluice' } },
              response: { allowedUpstreamHeaders: ['X-Auth-User'], allowedClientHeadersOnDenied: ['WWW-Authenticate'] },
            },
          },
        },
      ],
    }),
    authConfig('http-body', {
      configs: [
        {
          passThroughAuth: {
            http: {
              url: `http://127.0.0.1:${teamHttp.port}/body`,
              request: { allowedHeaders: ['authorization'], passThroughBody: true, passThroughState: true },
            },
            config: { team: 'blue' },
          },
        },
      ],
    }),
    authConfig('http-down-allow', {
      configs: [{ passThroughAuth: { http: { url: `http://127.0.0.1:${closed}/check` }, failureModeAllow: true } }],
    }),
    authConfig('opa', {
      configs: [{ opaServerAuth: { serverAddr: `127.0.0.1:${opa.port}`, package: 'envoy.authz', ruleName: 'allow' } }],
    }),
    authConfig('opa-down', {
      configs: [
        { opaServerAuth: { serverAddr: `http://127.0.0.1:${closed}`, package: 'envoy.authz', ruleName: 'allow' } },
      ],
    }),
    authConfig('combined', {
      booleanExpr: '(token || password) && !blocked',
      configs: [
        { name: 'token', jwt: {} },
        { name: 'password', basicAuth: { apr: { users } } },
        { name: 'blocked', apiKeyAuth: { apiKeySecretRefs: [{ name: 'ops-apikey', namespace: 'gloo-system' }] } },
      ],
    }),
    // password first: when it allows, the HTTP service is never asked.
    authConfig('either', {
      booleanExpr: 'password || remote',
      configs: [
        { name: 'password', basicAuth: { realm: 'either', apr: { users } } },
        {
          name: 'remote',
          passThroughAuth: {
            http: { url: `http://127.0.0.1:${teamHttp.port}/either`, request: { allowedHeaders: ['authorization'] } },
          },
        },
      ],
    }),
    // Both deny: the client sees the last denial asked (the API key's challenge, not Basic's).
    authConfig('neither', {
      booleanExpr: 'password || key',
      configs: [
        { name: 'password', basicAuth: { realm: 'neither', apr: { users } } },
        { name: 'key', apiKeyAuth: { apiKeySecretRefs: [{ name: 'partner-apikey', namespace: 'gloo-system' }] } },
      ],
    }),
    // No booleanExpr: every config in order, the first denial answers and later ones are not asked.
    authConfig('chain', {
      configs: [
        { basicAuth: { realm: 'chain', apr: { users } } },
        { passThroughAuth: { grpc: { address: grpcAt(teamGrpc.port) } } },
      ],
    }),
  ];
  return `${readFileSync(FIXTURE_SECRETS, 'utf8')}\n---\n${docs.map((d) => stringify(d)).join('---\n')}`;
}

beforeAll(async () => {
  [teamGrpc, restartable, teamHttp, opa] = await Promise.all([
    teamGrpcServer(),
    teamGrpcServer(),
    teamHttpServer(),
    opaDataApiDouble({ 'envoy/authz/allow': (input) => (input as any).http_request?.headers?.['x-opa'] === 'yes' }),
  ]);
  ({ sidecar: server, check, log } = await startSidecar(await compileConfig(await resources())));
});

afterAll(async () => {
  check?.close();
  await server?.close();
  teamGrpc?.close();
  restartable?.close();
  await teamHttp?.close();
  await opa?.close();
});

const removed = (res: CheckResponse) => res.ok_response?.headers_to_remove ?? [];

describe('apiKeyAuth', () => {
  test('a key of a Secret the label selector chose: allowed as that Secret, its metadata as a header, the key header removed', async () => {
    const res = await check('default.keys', { 'x-api-key': KEYS.infra });
    expect(httpStatus(res)).toBe(200);
    expect(header(res, 'x-user-id')).toBe('infra-apikey');
    expect(header(res, 'x-user-email')).toBe('infra@example.org');
    expect(removed(res)).toContain('x-api-key');
  });

  test('a missing, unknown or near-miss key is 401 with the same challenge; a key read from another header does not count', async () => {
    const answers = await Promise.all([
      check('default.keys', {}),
      check('default.keys', { 'x-api-key': 'nope' }),
      check('default.keys', { 'x-api-key': `${KEYS.infra.slice(0, -1)}x` }),
      check('default.keys', { 'x-api-key': `${KEYS.infra}x` }),
      check('default.keys', { 'api-key': KEYS.infra }),
    ]);
    for (const res of answers) {
      expect(httpStatus(res)).toBe(401);
      expect(header(res, 'www-authenticate')).toBe('API key is missing or invalid');
    }
    // The near misses are looked up by digest, so they are answered exactly as a wholly wrong key.
    expect(answers[2]).toEqual(answers[1]);
    expect(answers[3]).toEqual(answers[1]);
  });

  test('required metadata: a key whose Secret lacks the entry is refused (ops-apikey has no user-email)', async () => {
    expect(httpStatus(await check('default.keys', { 'x-api-key': KEYS.ops }))).toBe(401);
  });

  test('a Secret chosen by reference in another namespace; the label selector never chose it', async () => {
    expect(httpStatus(await check('default.partner-keys', { 'api-key': KEYS.partner }))).toBe(200);
    expect(httpStatus(await check('default.keys', { 'x-api-key': KEYS.partner }))).toBe(401);
  });

  test('the fixture Secrets are what kubectl writes (skipped without kubectl on PATH)', () => {
    let kubectl: string;
    try {
      kubectl = execFileSync(
        'kubectl',
        [
          'create',
          'secret',
          'generic',
          'partner-apikey',
          '-n',
          'gloo-system',
          '--type',
          'extauth.solo.io/apikey',
          `--from-literal=api-key=${KEYS.partner}`,
          '--from-literal=user-email=partner@example.com',
          '--dry-run=client',
          '-o',
          'yaml',
        ],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
      );
    } catch {
      console.warn('kubectl is not on PATH: the fixture Secrets are not compared with its output');
      return;
    }
    const fixture = parseAllDocuments(readFileSync(FIXTURE_SECRETS, 'utf8'))
      .map((d) => d.toJS())
      .find((d) => d.metadata.name === 'partner-apikey');
    expect(fixture).toEqual(parseAllDocuments(kubectl)[0]!.toJS());
  });
});

describe('basicAuth', () => {
  test('apr: hashes from openssl passwd -apr1; allowed as the user, credentials removed; UTF-8 passwords', async () => {
    for (const [user, password] of [
      ['alice', PASSWORDS.alice],
      ['josé', PASSWORDS['josé']],
    ] as const) {
      const res = await check('default.basic-apr', { authorization: basic(user, password) });
      expect(httpStatus(res)).toBe(200);
      expect(header(res, 'x-user-id')).toBe(user);
      expect(removed(res)).toContain('authorization');
    }
  });

  test('a wrong password, an unknown user, no or malformed credentials: 401 with WWW-Authenticate: Basic realm="staff"', async () => {
    for (const headers of [
      { authorization: basic('alice', 'wrong') },
      { authorization: basic('mallory', PASSWORDS.alice) },
      {},
      { authorization: 'Basic !!!' },
    ] as Record<string, string>[]) {
      const res = await check('default.basic-apr', headers);
      expect(httpStatus(res)).toBe(401);
      expect(header(res, 'www-authenticate')).toBe('Basic realm="staff"');
    }
  });

  test('encryption.sha1 with userList: openssl dgst -sha1 of password+salt', async () => {
    expect(httpStatus(await check('default.basic-sha1', { authorization: basic('bob', PASSWORDS.bob) }))).toBe(200);
    const res = await check('default.basic-sha1', { authorization: basic('bob', 'bob-PW') });
    expect(httpStatus(res)).toBe(401);
    expect(header(res, 'www-authenticate')).toBe('Basic realm="legacy"');
  });
});

describe('passThroughAuth over gRPC', () => {
  test("allowed: the team server's headers upstream; it got Envoy's request and the config under Gloo's metadata key", async () => {
    teamGrpc.requests.length = 0;
    const res = await check('default.grpc', { 'x-team-token': 'good', ':path': '/team' });
    expect(httpStatus(res)).toBe(200);
    expect(header(res, 'x-team-user')).toBe('team-alice');
    expect(teamGrpc.requests).toHaveLength(1);
    expect(teamGrpc.requests[0]!.headers[':path']).toBe('/team');
    expect(JSON.stringify(teamGrpc.requests[0]!.metadata['solo.auth.passthrough.config'])).toContain('customValue');
  });

  test("denied: the team server's status, headers and body reach the client", async () => {
    const res = await check('default.grpc', { 'x-team-token': 'bad' });
    expect(httpStatus(res)).toBe(403);
    expect(header(res, 'x-team-reason')).toBe('bad token');
    expect(res.denied_response?.body).toBe('team says no');
  });

  test('a server slower than connectionTimeout, or down: 503 (fail closed); down with failureModeAllow: allowed', async () => {
    teamGrpc.delayMs = 1500;
    try {
      expect(httpStatus(await check('default.grpc', { 'x-team-token': 'good' }))).toBe(503);
    } finally {
      teamGrpc.delayMs = 0;
    }
    expect(httpStatus(await check('default.grpc-down', {}))).toBe(503);
    expect(httpStatus(await check('default.grpc-down-allow', {}))).toBe(200);
  });
});

test('passThroughAuth over gRPC: a server that stops is 503, never OK; once it is back, it decides again', async () => {
  const port = restartable.port;
  expect(httpStatus(await check('default.grpc-restart', { 'x-team-token': 'good' }))).toBe(200);
  restartable.close();
  expect(httpStatus(await check('default.grpc-restart', { 'x-team-token': 'good' }))).toBe(503);
  restartable = await teamGrpcServer(port);
  const back = Date.now();
  // Asked again every 50 ms until allowed: each answer meanwhile is 503, never OK by mistake.
  for (let status = 0; status !== 200; await new Promise((r) => setTimeout(r, 50))) {
    status = httpStatus(await check('default.grpc-restart', { 'x-team-token': 'good' }));
    if (status !== 200) expect(status).toBe(503);
  }
  // Reconnection backoff is capped at 1 s; the figure is for the report, the bound is the test's timeout.
  console.log(`pass-through gRPC server back: allowed again after ${Date.now() - back} ms`);
  expect(httpStatus(await check('default.grpc-restart', { 'x-team-token': 'bad' }))).toBe(403);
});

describe('passThroughAuth over HTTP', () => {
  test('allowed: only the allowed request headers and the added ones are sent; only the allowed response header goes upstream', async () => {
    teamHttp.requests.length = 0;
    const res = await check('default.http', { authorization: 'Bearer good', cookie: 'session=private' });
    expect(httpStatus(res)).toBe(200);
    expect(header(res, 'x-auth-user')).toBe('http-alice');
    expect(header(res, 'x-not-allowed')).toBeUndefined();
    const sent = teamHttp.requests[0]!;
    expect(sent.path).toBe('/check');
    expect(sent.headers.authorization).toBe('Bearer good');
    expect(sent.headers['x-from']).toBe('sluice');
    expect(sent.headers.cookie).toBeUndefined();
  });

  test("denied: the service's status and the headers allowed on denial reach the client", async () => {
    const res = await check('default.http', { authorization: 'Bearer bad' });
    expect(httpStatus(res)).toBe(401);
    expect(header(res, 'www-authenticate')).toBe('Bearer realm="team"');
    expect(header(res, 'x-not-allowed')).toBeUndefined();
  });

  test('passThroughBody, passThroughState and config: the JSON body Gloo sends, with the body Envoy buffered', async () => {
    teamHttp.requests.length = 0;
    expect(
      httpStatus(await check('default.http-body', { authorization: 'Bearer good' }, { body: '{"order":42}' })),
    ).toBe(200);
    expect(JSON.parse(teamHttp.requests[0]!.body)).toEqual({
      body: '{"order":42}',
      state: {},
      config: { team: 'blue' },
    });
  });

  test('slower than connectionTimeout: 503; unreachable with failureModeAllow: allowed', async () => {
    teamHttp.delayMs = 1500;
    try {
      expect(httpStatus(await check('default.http', { authorization: 'Bearer good' }))).toBe(503);
    } finally {
      teamHttp.delayMs = 0;
    }
    expect(httpStatus(await check('default.http-down-allow', {}))).toBe(200);
  });
});

describe("opaServerAuth (a double of OPA's Data API; ./opa.test.ts uses a real opa when present)", () => {
  test('POST /v1/data/envoy/authz/allow with the input Gloo gives: true allows, false is 403', async () => {
    opa.requests.length = 0;
    expect(httpStatus(await check('default.opa', { 'x-opa': 'yes', ':path': '/opa' }))).toBe(200);
    expect(httpStatus(await check('default.opa', { 'x-opa': 'no' }))).toBe(403);
    expect(opa.requests[0]!.path).toBe('/v1/data/envoy/authz/allow');
    const input = opa.requests[0]!.input as { http_request: { path: string }; check_request: unknown };
    expect(input.http_request.path).toBe('/opa');
    expect(input.check_request).toBeDefined();
  });

  test('an OPA server that cannot be reached: 503', async () => {
    expect(httpStatus(await check('default.opa-down', { 'x-opa': 'yes' }))).toBe(503);
  });
});

describe('jwt and booleanExpr', () => {
  const verified = {
    'envoy.filters.http.jwt_authn': { fields: { idp: { structValue: { fields: { sub: { stringValue: 'alice' } } } } } },
  };

  test('(token || password) && !blocked: a verified JWT or a password, and not the blocked key', async () => {
    expect(httpStatus(await check('default.combined', {}, { filterMetadata: verified }))).toBe(200);
    expect(httpStatus(await check('default.combined', { authorization: basic('alice', PASSWORDS.alice) }))).toBe(200);
    expect(httpStatus(await check('default.combined', { 'api-key': KEYS.ops }, { filterMetadata: verified }))).toBe(
      403,
    );
    const none = await check('default.combined', {});
    expect(httpStatus(none)).toBe(401);
    // The last denial asked: password's, with its challenge.
    expect(header(none, 'www-authenticate')).toBe('Basic realm=""');
  });

  test('short-circuit: when password allows, the HTTP service is not asked; when it denies, the service decides', async () => {
    teamHttp.requests.length = 0;
    expect(httpStatus(await check('default.either', { authorization: basic('alice', PASSWORDS.alice) }))).toBe(200);
    expect(teamHttp.requests).toHaveLength(0);
    expect(httpStatus(await check('default.either', { authorization: 'Bearer good' }))).toBe(200);
    expect(teamHttp.requests.map((r) => r.path)).toEqual(['/either']);
  });

  test("both deny: the client sees the last denial (the API key challenge, not Basic's)", async () => {
    const res = await check('default.neither', { authorization: basic('alice', 'wrong') });
    expect(httpStatus(res)).toBe(401);
    expect(header(res, 'www-authenticate')).toBe('API key is missing or invalid');
  });

  test('no booleanExpr: configs in order; the first denial answers and later configs are not asked', async () => {
    teamGrpc.requests.length = 0;
    const res = await check('default.chain', { authorization: basic('alice', 'wrong'), 'x-team-token': 'good' });
    expect(httpStatus(res)).toBe(401);
    expect(teamGrpc.requests).toHaveLength(0);
    const ok = await check('default.chain', { authorization: basic('alice', PASSWORDS.alice), 'x-team-token': 'good' });
    expect(httpStatus(ok)).toBe(200);
    expect(header(ok, 'x-user-id')).toBe('alice');
    expect(header(ok, 'x-team-user')).toBe('team-alice');
  });
});

test('no key or password was logged', () => {
  const text = log();
  expect(text.length).toBeGreaterThan(0);
  for (const secret of [...Object.values(KEYS), ...Object.values(PASSWORDS)]) expect(text).not.toContain(secret);
});
