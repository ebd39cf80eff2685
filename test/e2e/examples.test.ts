/**
 * Every scenario of examples/ (scripts/start-scenarios.ts, the table `npm
 * start` prints as curl commands), on the stack `npm start` runs: the example
 * upstreams, the example directory in slapd, `sluice serve` on examples/ plus
 * the loopback overlay (scripts/start-local.ts), sluice-extauth and
 * sluice-graphql fed by it over xDS.
 *
 * Always (CI has no Envoy): the xDS snapshot routes each scenario where it
 * should go, the sidecars answer the LDAP and GraphQL scenarios when
 * reached directly with what Envoy would send, the `sluice explain` line npm
 * start prints for each scenario without Envoy gives the answer printed
 * beside it, and every case of examples/tests.yaml passes against the
 * example directory. With an Envoy binary
 * (ENVOY_BIN or envoy on PATH): every scenario through Envoy, tokens minted by
 * the very command `npm start` prints (scripts/demo-token.mjs).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_OPTIONS, type CompileOptions } from '../../compiler/translate/output.js';
import { adsBootstrap } from '../../control-plane/bootstrap.js';
import { startServe, type Serving } from '../../control-plane/run.js';
import { startExtauth, type RunningExtauth } from '../../extauth-server/server.js';
import { startGraphql, type RunningGraphql } from '../../graphql-server/server.js';
import { TYPE_URL, GRAPHQL_API_HEADER } from '../../contract/names.js';
import { startEcho, type RunningService } from '../../examples/services/echo.js';
import { startFiles } from '../../examples/services/files.js';
import { startGrpcServices } from '../../examples/services/grpc.js';
import { startExampleDirectory, type ExampleDirectory } from '../../scripts/start-directory.js';
import { servicePortKey, writeLocalResources } from '../../scripts/start-local.js';
import { explainAnswer, explainCommand, SCENARIOS, type Scenario } from '../../scripts/start-scenarios.js';
import { basic } from '../../harness/extauth-check.js';
import { checker, closedPort, header, httpStatus, type Checker } from '../extauth/helpers.js';
import { findEnvoy, noEnvoyReason, startEnvoy, type RunningEnvoy } from '../../harness/envoy.js';
import { SotwClient, type Json } from '../../harness/xds-client.js';
import { testLogger } from '../../harness/log-check.js';

const run = promisify(execFile);
const ENVOY = findEnvoy();
if (!ENVOY) console.log(noEnvoyReason('test/e2e/examples.test.ts'));
const describeWithEnvoy = ENVOY ? describe : describe.skip;

const ROOT = process.cwd();
const silent = testLogger();

/**
 * Not an example: the service-account host with a Secret whose password is
 * wrong, for the one LDAP answer the examples cannot show (500).
 */
const WRONG_SECRET = (ldapAddress: string) => `apiVersion: v1
kind: Secret
metadata: {name: wrong-secret, namespace: e2e}
type: Opaque
stringData: {username: 'cn=reader,dc=example,dc=org', password: not-the-password}
---
apiVersion: enterprise.gateway.example/v1
kind: AuthConfig
metadata: {name: wrong-secret, namespace: e2e}
spec:
  configs:
    - ldap:
        address: ${ldapAddress}
        userDnTemplate: uid=%s,ou=people,dc=example,dc=org
        allowedGroups: ['cn=managers,ou=groups,dc=example,dc=org']
        searchFilter: (objectClass=inetOrgPerson)
        membershipAttributeName: memberOf
        groupLookupSettings:
          checkGroupsWithServiceAccount: true
          credentialsSecretRef: {name: wrong-secret, namespace: e2e}
---
apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: {name: wrong-secret, namespace: e2e}
spec:
  virtualHost:
    domains: [wrong-secret.test]
    routes:
      - matchers: [{prefix: /}]
        routeAction: {single: {kube: {ref: {name: echo, namespace: default}, port: 8080}}}
    options:
      extauth: {configRef: {name: wrong-secret, namespace: e2e}}
`;
const MARIE = { user: 'marie', password: 'marie-password' };

let dir: string;
let directory: ExampleDirectory;
const upstreams: RunningService[] = [];
/** Example upstream name -> its loopback port. */
const ports = new Map<string, number>();
let extauth: RunningExtauth;
let graphql: RunningGraphql;
let serving: Serving;
let options: CompileOptions;
/** The Upstream overlay of the examples on loopback, as npm start writes it. */
let overlay: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'sluice-e2e-examples-'));
  directory = await startExampleDirectory(ROOT);
  if (!directory.running) throw new Error(`the examples' LDAP scenarios need slapd: ${directory.hint}`);

  const services = new Map<string, number>();
  const serve = async (name: string, key: string, start: Promise<RunningService>) => {
    const running = await start;
    upstreams.push(running);
    ports.set(name, running.port);
    services.set(key, running.port);
  };
  await serve('echo', servicePortKey('default', 'echo', 8080), startEcho('echo'));
  await serve('petstore', servicePortKey('default', 'petstore', 8080), startEcho('petstore'));
  await serve('jwks', servicePortKey('default', 'jwks', 8000), startFiles(path.join(ROOT, 'deploy/jwks')));
  await serve('users', servicePortKey('default', 'user-service', 50051), startGrpcServices(['users']));
  await serve('products', servicePortKey('default', 'product-service', 50051), startGrpcServices(['products']));

  const local = await writeLocalResources(path.join(ROOT, 'examples'), dir, {
    services,
    ldapAddress: directory.address,
  });
  expect(local.unserved).toEqual([]);
  overlay = local.overlay;
  const wrongSecret = path.join(dir, 'wrong-secret.yaml');
  writeFileSync(wrongSecret, WRONG_SECRET(directory.address));

  // The sidecars first (their ports go into Envoy's clusters); they connect once serve listens.
  const xdsPort = await closedPort();
  const xds = `127.0.0.1:${xdsPort}`;
  extauth = await startExtauth({
    xds,
    nodeId: 'e2e-extauth',
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    logger: silent,
  });
  graphql = await startGraphql({
    xds,
    nodeId: 'e2e-graphql',
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    logger: silent,
  });
  options = {
    ...DEFAULT_OPTIONS,
    listenerAddress: '127.0.0.1',
    listenerPort: await closedPort(),
    extauthAddress: { host: '127.0.0.1', port: extauth.port },
    graphqlAddress: { host: '127.0.0.1', port: graphql.port },
  };
  serving = await startServe({
    paths: [...local.paths, wrongSecret],
    compileOptions: options,
    host: '127.0.0.1',
    xdsPort,
    adminPort: 0,
    logger: silent,
  });
  expect(serving.firstCompile).toMatchObject({ ok: true });
  await until200(`http://127.0.0.1:${extauth.adminPort}/readyz`);
  await until200(`http://127.0.0.1:${graphql.adminPort}/readyz`);
});

afterAll(async () => {
  await graphql?.close();
  await extauth?.close();
  await serving?.close();
  for (const u of upstreams) await u.close();
  await directory?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function until200(url: string): Promise<void> {
  for (;;) {
    const status = await fetch(url).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('without Envoy', () => {
  let routes: Json;
  let endpoints: Map<string, string[]>;
  let check: Checker;

  beforeAll(async () => {
    const ads = new SotwClient(serving.xdsPort, 'e2e-snapshot');
    try {
      ads.send({ type_url: TYPE_URL.cluster });
      const clusters = await ads.expect(TYPE_URL.cluster);
      ads.ack(clusters);
      const eds = clusters.resources.filter((c) => c.type === 'EDS').map((c) => c.name as string);
      ads.send({ type_url: TYPE_URL.endpoint, resource_names: eds });
      const assignments = await ads.expect(TYPE_URL.endpoint);
      endpoints = new Map(
        assignments.resources.map((a) => [
          a.cluster_name as string,
          JSON.stringify(a)
            .match(/"socket_address":\{[^}]*\}/g)!
            .map((s) => {
              const { address, port_value } = JSON.parse(s.slice('"socket_address":'.length)) as {
                address: string;
                port_value: number;
              };
              return `${address}:${port_value}`;
            }),
        ]),
      );
      ads.ack(assignments, eds);
      // In Envoy's order (listeners before the routes they name), which the server keeps.
      ads.send({ type_url: TYPE_URL.listener });
      const listeners = await ads.expect(TYPE_URL.listener);
      const routeName = listeners.resources[0]!.filter_chains[0].filters[0].typed_config.rds
        .route_config_name as string;
      ads.ack(listeners);
      ads.send({ type_url: TYPE_URL.route, resource_names: [routeName] });
      routes = (await ads.expect(TYPE_URL.route)).resources[0]!;
    } finally {
      ads.close();
    }
    check = checker(extauth.port);
  });

  afterAll(() => check?.close());

  /** The virtual host and route Envoy picks for a scenario: exact domain, else `*`; the first matching prefix. */
  function routeOf(s: Scenario): { vhost: Json; route: Json } {
    const vhosts = routes.virtual_hosts as Json[];
    const vhost =
      vhosts.find((v) => (v.domains as string[]).includes(s.host)) ??
      vhosts.find((v) => (v.domains as string[]).includes('*'))!;
    const route = (vhost.routes as Json[]).find((r) => s.path.startsWith(r.match.prefix as string))!;
    return { vhost, route };
  }

  test.each(SCENARIOS.map((s) => [`${s.host} ${s.method ?? 'GET'} ${s.path}: ${s.what}`, s] as const))(
    'the snapshot routes %s',
    (_name, s) => {
      const { vhost, route } = routeOf(s);
      expect(route).toBeDefined();
      const filters = vhost.typed_per_filter_config as Json;
      if (s.graphql) {
        expect(route.route.cluster).toBe('graphql');
        expect(route.request_headers_to_add).toEqual([
          expect.objectContaining({ header: { key: GRAPHQL_API_HEADER, value: s.graphql.api } }),
        ]);
      } else {
        // The route's cluster is the loopback port of the upstream that answers (of one of them when Envoy refuses).
        const candidates = s.expect.from ? [s.expect.from] : ['echo', 'petstore'];
        expect(candidates.map((name) => `127.0.0.1:${ports.get(name)}`)).toContainEqual(
          endpoints.get(route.route.cluster)?.[0],
        );
        expect(endpoints.get(route.route.cluster)).toHaveLength(1);
      }
      if (s.token || s.expect.body?.startsWith('Jwt'))
        expect(filters['envoy.filters.http.jwt_authn'].requirement_name).toBe(vhost.name);
      if (s.expect.body === 'RBAC: access denied')
        expect(Object.keys(filters['envoy.filters.http.rbac'].rbac.rules.policies)).toEqual(['admins', 'readers']);
      if (s.basic || s.host.startsWith('ldap'))
        expect(filters['envoy.filters.http.ext_authz'].check_settings.context_extensions.config_ref).toBe(vhost.name);
    },
  );

  test('the remote key set is fetched from the jwks upstream on loopback', () => {
    expect(endpoints.get('default-jwks-8000')).toEqual([`127.0.0.1:${ports.get('jwks')}`]);
  });

  const ldap = SCENARIOS.filter((s) => s.host.startsWith('ldap'));
  test.each(ldap.map((s) => [`${s.host}: ${s.what}`, s] as const))(
    'sluice-extauth answers Check for %s',
    async (_name, s) => {
      const { vhost } = routeOf(s);
      const res = await check(
        vhost.name as string,
        s.basic ? { authorization: basic(s.basic.user, s.basic.password) } : {},
      );
      expect(httpStatus(res)).toBe(s.expect.status);
      if (s.expect.status === 200)
        expect(header(res, 'x-user-id')).toBe(`uid=${s.basic!.user},ou=people,dc=example,dc=org`);
    },
  );

  test('sluice-extauth: a service account whose Secret is wrong is 500', async () => {
    expect(httpStatus(await check('e2e.wrong-secret', { authorization: basic(MARIE.user, MARIE.password) }))).toBe(500);
  });

  const graphqlScenarios = SCENARIOS.filter((s) => s.graphql);
  test.each(graphqlScenarios.map((s) => [s.graphql!.api, s] as const))(
    'sluice-graphql answers %s with the merged JSON',
    async (_name, s) => {
      const res = await fetch(`http://127.0.0.1:${graphql.port}${s.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [GRAPHQL_API_HEADER]: s.graphql!.api },
        body: JSON.stringify({ query: s.graphql!.query }),
      });
      expect({ status: res.status, json: await res.json() }).toEqual({ status: s.expect.status, json: s.expect.json });
    },
  );
});

describe('without Envoy, sluice explain and sluice test', () => {
  test('the line npm start prints for each scenario gives the answer printed beside it', async () => {
    // Each printed command as a shell runs it (tokens minted by its own $(...)), from the repository, four at a time.
    const targets = { overlay, ldapAddress: directory.address };
    const got = new Map<Scenario, { command: string; answer?: string; stderr: string }>();
    const queue = [...SCENARIOS];
    // npm's own start costs more CPU than the compiler's: the first line runs through npx as printed, the others run
    // the same line with the binary npx resolves to.
    let throughNpx = true;
    const explainOnce = async (printed: string, viaNpx: boolean) => {
      const command = viaNpx ? printed : printed.replace(/^npx sluice /, 'node bin/sluice.js ');
      const { stdout, stderr } = (await run('bash', ['-c', command], { cwd: ROOT }).catch((err) => err)) as {
        stdout: string;
        stderr: string;
      };
      return { command: printed, answer: stdout.trimEnd().split('\n').at(-1), stderr };
    };
    const worker = async () => {
      for (let s = queue.shift(); s; s = queue.shift()) {
        const printed = explainCommand(s, targets);
        const viaNpx = throughNpx;
        throughNpx = false;
        let result = await explainOnce(printed, viaNpx);
        // --fetch-jwks asks this process's key server within 5 s; on two cores running two suites it once did not
        // answer in time. Such a miss is asked again; keys that never come still fail the line.
        if (result.answer?.includes('Jwks remote fetch is failed') && !explainAnswer(s).includes('Jwks remote fetch'))
          result = await explainOnce(printed, viaNpx);
        got.set(s, result);
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    expect(SCENARIOS.map((s) => got.get(s))).toEqual(
      SCENARIOS.map((s) => ({ command: explainCommand(s, targets), answer: explainAnswer(s), stderr: '' })),
    );
    // Each run starts a compiler (about 1.6 s of CPU since the build precomputes the schema checks and Envoy's protos).
  }, 900_000);

  test('every case of examples/tests.yaml passes with --ldap-address on the example directory', async () => {
    // A failing case exits 1: its report is the output to show.
    const { stdout } = (await run(
      process.execPath,
      ['bin/sluice.js', 'test', '-f', 'examples', '--ldap-address', directory.address],
      { cwd: ROOT },
    ).catch((err) => err)) as { stdout: string };
    const last = stdout.trimEnd().split('\n').at(-1)!;
    const total = Number(/^(\d+) cases/.exec(last)![1]);
    // A global rate limit rests on the requests before (explain does not count): those cases stay unverified.
    const counted = stdout.match(/assumed: the request is under every limit of domain/g)?.length ?? 0;
    expect([last, stdout]).toEqual([
      `${total} cases: ${total - counted} passed, 0 failed, ${counted} unverified`,
      expect.any(String),
    ]);
  });
});

interface Reply {
  status: number;
  body: string;
}

function send(
  port: number,
  host: string,
  method: string,
  target: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path: target, headers: { host, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A token as the printed curl command mints it. */
async function token(args: string[]): Promise<string> {
  return (await run(process.execPath, ['scripts/demo-token.mjs', ...args])).stdout.trim();
}

describeWithEnvoy('through Envoy', () => {
  let envoy: RunningEnvoy;

  beforeAll(async () => {
    const adminPort = await closedPort();
    const config = path.join(dir, 'envoy.json');
    const bootstrap = adsBootstrap({
      xdsAddress: { host: '127.0.0.1', port: serving.xdsPort },
      nodeId: 'e2e-envoy',
      nodeCluster: 'e2e',
      listenerPort: options.listenerPort,
      adminPort,
      delta: false,
    });
    writeFileSync(config, JSON.stringify(bootstrap));
    envoy = await startEnvoy(ENVOY!, config, adminPort);
  });

  afterAll(async () => {
    await envoy?.stop();
  });

  test.each(SCENARIOS.map((s) => [`${s.host} ${s.method ?? 'GET'} ${s.path}: ${s.what}`, s] as const))(
    '%s',
    async (_name, s) => {
      const headers: Record<string, string> = {};
      let target = s.path;
      if (s.token?.in === 'query') target += `?access_token=${await token(s.token.args)}`;
      else if (s.token) headers.authorization = `Bearer ${await token(s.token.args)}`;
      if (s.basic) headers.authorization = basic(s.basic.user, s.basic.password);
      let body: string | undefined;
      if (s.graphql) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify({ query: s.graphql.query });
      }
      const reply = await send(
        options.listenerPort,
        s.host,
        s.graphql ? 'POST' : (s.method ?? 'GET'),
        target,
        headers,
        body,
      );
      expect(reply.status).toBe(s.expect.status);
      if (s.expect.body !== undefined) expect(reply.body).toBe(s.expect.body);
      if (s.expect.json !== undefined) expect(JSON.parse(reply.body)).toEqual(s.expect.json);
      if (s.expect.from) expect(JSON.parse(reply.body)).toMatchObject({ service: s.expect.from });
    },
  );

  test('a service account whose Secret is wrong: 500', async () => {
    const reply = await send(options.listenerPort, 'wrong-secret.test', 'GET', '/', {
      authorization: basic(MARIE.user, MARIE.password),
    });
    expect(reply.status).toBe(500);
  });
});
