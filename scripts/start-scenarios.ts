/**
 * What each example answers through Envoy: the requests `npm start` prints as
 * curl commands (with Envoy) or `sluice explain` commands (without), and
 * test/e2e/examples.test.ts sends and runs, with the expected answer. Tokens
 * come from scripts/demo-token.mjs (its arguments are given), so the printed
 * commands mint them exactly as the test does.
 */

export interface Expected {
  status: number;
  /** The exact body (Envoy's and the sidecars' own answers). */
  body?: string;
  /** The exact JSON body (GraphQL). */
  json?: unknown;
  /** The example upstream that answered (examples/services/echo.ts says its name). */
  from?: string;
}

export interface Scenario {
  /** The example file it exercises and what it shows. */
  file: string;
  what: string;
  host: string;
  method?: string;
  path: string;
  /** Arguments of scripts/demo-token.mjs; the token goes in `Authorization: Bearer`, or the `access_token` parameter. */
  token?: { args: string[]; in?: 'header' | 'query' };
  /** HTTP Basic credentials. */
  basic?: { user: string; password: string };
  /** A GraphQL query, POSTed as JSON, and the API the route sends it to (`<namespace>.<name>`, the header Envoy sets). */
  graphql?: { query: string; api: string };
  expect: Expected;
}

const READER = ['{"sub":"alice","role":"reader"}'];
const ADMIN = ['{"sub":"root","role":"admin"}'];
const GUEST = ['{"sub":"mallory","role":"guest"}'];

const USER_QUERY = '{ GetUser(id: 1) { username fullName role } }';
const STITCHED_QUERY = '{ GetProduct(id: 2) { name seller { id username fullName } } }';

function jwtScenarios(file: string, host: string): Scenario[] {
  return [
    { file, what: 'no token', host, path: '/', expect: { status: 401, body: 'Jwt is missing' } },
    {
      file,
      what: 'a good token (Bearer)',
      host,
      path: '/',
      token: { args: [] },
      expect: { status: 200, from: 'echo' },
    },
    {
      file,
      what: 'a good token (access_token)',
      host,
      path: '/',
      token: { args: [], in: 'query' },
      expect: { status: 200, from: 'echo' },
    },
    {
      file,
      what: 'a bad signature',
      host,
      path: '/',
      token: { args: ['--forged'] },
      expect: { status: 401, body: 'Jwt verification fails' },
    },
    {
      file,
      what: 'a wrong issuer',
      host,
      path: '/',
      token: { args: ['{"iss":"https://someone.else.example"}'] },
      expect: { status: 401, body: 'Jwt issuer is not configured' },
    },
    {
      file,
      what: 'an expired token',
      host,
      path: '/',
      token: { args: ['--expired'] },
      expect: { status: 401, body: 'Jwt is expired' },
    },
  ];
}

export const SCENARIOS: Scenario[] = [
  {
    file: 'route.yaml',
    what: 'a plain route',
    host: 'petstore.example.com',
    path: '/api/pets',
    expect: { status: 200, from: 'petstore' },
  },
  {
    file: 'route.yaml',
    what: 'the rest of the host, to an Upstream by name',
    host: 'petstore.example.com',
    path: '/about',
    expect: { status: 200, from: 'echo' },
  },
  {
    file: 'route.yaml',
    what: 'any other domain (catch-all)',
    host: 'anything.example.org',
    path: '/',
    expect: { status: 200, from: 'echo' },
  },

  ...jwtScenarios('jwt-inline.yaml', 'jwt.example.com'),
  ...jwtScenarios('jwt-remote.yaml', 'jwt-remote.example.com'),

  {
    file: 'rbac.yaml',
    what: 'a reader reads',
    host: 'rbac.example.com',
    path: '/api/pets',
    token: { args: READER },
    expect: { status: 200, from: 'petstore' },
  },
  {
    file: 'rbac.yaml',
    what: 'a reader deletes (wrong method)',
    host: 'rbac.example.com',
    method: 'DELETE',
    path: '/api/pets/1',
    token: { args: READER },
    expect: { status: 403, body: 'RBAC: access denied' },
  },
  {
    file: 'rbac.yaml',
    what: 'a reader outside /api/pets (wrong path)',
    host: 'rbac.example.com',
    path: '/api/owners',
    token: { args: READER },
    expect: { status: 403, body: 'RBAC: access denied' },
  },
  {
    file: 'rbac.yaml',
    what: 'a guest (wrong claim)',
    host: 'rbac.example.com',
    path: '/api/pets',
    token: { args: GUEST },
    expect: { status: 403, body: 'RBAC: access denied' },
  },
  {
    file: 'rbac.yaml',
    what: 'an admin deletes anywhere under /api',
    host: 'rbac.example.com',
    method: 'DELETE',
    path: '/api/owners/1',
    token: { args: ADMIN },
    expect: { status: 200, from: 'petstore' },
  },

  {
    file: 'ldap-user.yaml',
    what: 'no Authorization header',
    host: 'ldap.example.com',
    path: '/',
    expect: { status: 401, body: '' },
  },
  {
    file: 'ldap-user.yaml',
    what: 'an unknown user',
    host: 'ldap.example.com',
    path: '/',
    basic: { user: 'nobody', password: 'nothing' },
    expect: { status: 401, body: '' },
  },
  {
    file: 'ldap-user.yaml',
    what: 'a wrong password',
    host: 'ldap.example.com',
    path: '/',
    basic: { user: 'marie', password: 'wrong' },
    expect: { status: 401, body: '' },
  },
  {
    file: 'ldap-user.yaml',
    what: 'a user in no allowed group',
    host: 'ldap.example.com',
    path: '/',
    basic: { user: 'paul', password: 'paul-password' },
    expect: { status: 403, body: '' },
  },
  {
    file: 'ldap-user.yaml',
    what: 'a member of managers',
    host: 'ldap.example.com',
    path: '/',
    basic: { user: 'marie', password: 'marie-password' },
    expect: { status: 200, from: 'echo' },
  },

  {
    file: 'ldap-service-account.yaml',
    what: 'a member of managers',
    host: 'ldap-sa.example.com',
    path: '/',
    basic: { user: 'marie', password: 'marie-password' },
    expect: { status: 200, from: 'echo' },
  },
  {
    file: 'ldap-service-account.yaml',
    what: 'a user in no allowed group',
    host: 'ldap-sa.example.com',
    path: '/',
    basic: { user: 'paul', password: 'paul-password' },
    expect: { status: 403, body: '' },
  },
  {
    file: 'ldap-service-account.yaml',
    what: 'a wrong password',
    host: 'ldap-sa.example.com',
    path: '/',
    basic: { user: 'marie', password: 'wrong' },
    expect: { status: 401, body: '' },
  },

  {
    file: 'graphql-grpc.yaml',
    what: 'a query on the gRPC-backed API',
    host: 'users.example.com',
    path: '/graphql',
    graphql: { query: USER_QUERY, api: 'default.user-api' },
    expect: { status: 200, json: { data: { GetUser: { username: 'ada', fullName: 'Ada Lovelace', role: 'ADMIN' } } } },
  },
  {
    file: 'graphql-stitched.yaml',
    what: 'one query across products and users (User merged)',
    host: 'shop.example.com',
    path: '/graphql',
    graphql: { query: STITCHED_QUERY, api: 'default.shop-api' },
    expect: {
      status: 200,
      json: {
        data: { GetProduct: { name: 'Compiler', seller: { id: 2, username: 'grace', fullName: 'Grace Hopper' } } },
      },
    },
  },
];

/** POSIX shell single quoting. */
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

const tokenCommand = (args: string[]) => `$(node scripts/demo-token.mjs${args.map((a) => ` ${quote(a)}`).join('')})`;

/** The scenario as a curl command against Envoy's listener at `base` (e.g. http://127.0.0.1:8080); prints the body, then the status. */
export function curl(s: Scenario, base: string): string {
  const parts = ['curl -s -w', quote('\\n%{http_code}\\n')];
  if (s.method && s.method !== 'GET') parts.push('-X', s.method);
  parts.push('-H', quote(`Host: ${s.host}`));
  if (s.basic) parts.push('-u', quote(`${s.basic.user}:${s.basic.password}`));
  let url = `${base}${s.path}`;
  if (s.token?.in === 'query') url += `?access_token=${tokenCommand(s.token.args)}`;
  else if (s.token) parts.push('-H', `"Authorization: Bearer ${tokenCommand(s.token.args)}"`);
  if (s.graphql !== undefined)
    parts.push('-H', quote('content-type: application/json'), '-d', quote(JSON.stringify({ query: s.graphql.query })));
  parts.push(s.token?.in === 'query' ? `"${url}"` : url);
  return parts.join(' ');
}

/** The cluster of each example upstream a scenario's answer comes from (its Service port's discovered Upstream). */
const CLUSTER_OF: Record<string, string> = { echo: 'default-echo-8080', petstore: 'default-petstore-8080' };

/** Where `explainCommand` reads from and asks. */
export interface ExplainTargets {
  /** The Upstream overlay npm start writes (out/local/upstreams.yaml): each Service on loopback, so remote keys are fetched from there. */
  overlay: string;
  /** The example directory npm start runs, e.g. ldap://127.0.0.1:3389. */
  ldapAddress: string;
}

/**
 * The scenario as a `sluice explain` command that gives the same answer
 * without Envoy: the configuration `serve` sends (examples/ plus the loopback
 * overlay), remote keys fetched through their cluster, and the LDAP ones
 * asking the directory npm start runs.
 */
export function explainCommand(s: Scenario, targets: ExplainTargets): string {
  const parts = [
    'npx sluice explain -f examples -f',
    /^[\w./-]+$/.test(targets.overlay) ? targets.overlay : quote(targets.overlay),
  ];
  if (s.token?.in !== 'query' && s.token) parts.push('--jwt', `"${tokenCommand(s.token.args)}"`);
  if (s.token) parts.push('--fetch-jwks');
  if (s.basic)
    parts.push('--user', quote(`${s.basic.user}:${s.basic.password}`), '--ldap-address', targets.ldapAddress);
  const url = `http://${s.host}${s.path}`;
  parts.push(
    s.graphql ? 'POST' : (s.method ?? 'GET'),
    s.token?.in === 'query' ? `"${url}?access_token=${tokenCommand(s.token.args)}"` : url,
  );
  return parts.join(' ');
}

/** The last line `sluice explain` prints for the scenario: the answer of `describeExpected`, as explain words it. */
export function explainAnswer(s: Scenario): string {
  const e = s.expect;
  if (s.graphql) return 'answer: upstream (cluster graphql answers)';
  if (e.from) return `answer: upstream (cluster ${CLUSTER_OF[e.from]} answers)`;
  if (e.body?.startsWith('Jwt'))
    return `answer: ${e.status} ${JSON.stringify(e.body)} from envoy.filters.http.jwt_authn`;
  if (e.body?.startsWith('RBAC')) return `answer: ${e.status} ${JSON.stringify(e.body)} from envoy.filters.http.rbac`;
  // The LDAP hosts: sluice-extauth's empty answers; a 401 asks for Basic credentials in the AuthConfig's realm.
  const realm = `default.${s.file.replace(/\.yaml$/, '')}`;
  return e.status === 401
    ? `answer: 401 (empty body), www-authenticate: Basic realm="${realm}", charset="UTF-8" from sluice-extauth`
    : `answer: ${e.status} (empty body) from sluice-extauth`;
}

/** The expected answer in words, e.g. `401 Jwt is missing`, `200 from echo`. */
export function describeExpected(e: Expected): string {
  if (e.json !== undefined) return `${e.status} ${JSON.stringify(e.json)}`;
  if (e.from) return `${e.status}, JSON from ${e.from}`;
  return e.body ? `${e.status} ${e.body}` : `${e.status}, empty body`;
}
