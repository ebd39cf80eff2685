/**
 * sluice-extauth joins the request's trace: a Check whose headers carry
 * Envoy's W3C traceparent (or B3) is a server span under Envoy's span, with
 * the LDAP bind(s) and the group search as children, exported over OTLP/HTTP
 * to a real receiver in this process; against a real slapd.
 */
import { startExtauth, type RunningExtauth } from '../../extauth-server/server.js';
import { basic, writeConfig } from '../../harness/extauth-check.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../harness/otlp-receiver.js';
import { groupDn, SERVICE_ACCOUNT, startSlapd, USER_DN_TEMPLATE, type Slapd } from '../../harness/slapd.js';
import { checker, httpStatus, memoryLogger, type Checker } from './helpers.js';

const ENVOY_SPAN = '00f067aa0ba902b7';
const traceId = (n: number) => `${n}bf92f3577b34da6a3ce929d0e0e4736`;

let slapd: Slapd;
let receiver: OtlpReceiver;
let server: RunningExtauth;
let check: Checker;

beforeAll(async () => {
  slapd = await startSlapd();
  receiver = await startOtlpReceiver();
  const ldap = {
    address: slapd.url,
    user_dn_template: USER_DN_TEMPLATE,
    allowed_groups: [groupDn('developers')],
    search_filter: '(uid=*)',
    membership_attribute_name: 'memberOf',
  };
  const file = await writeConfig([
    { name: 'default.users', configs: [{ ldap }] },
    {
      name: 'default.sa',
      configs: [
        { ldap: { ...ldap, service_account: { username: SERVICE_ACCOUNT.dn, password: SERVICE_ACCOUNT.password } } },
      ],
    },
  ]);
  server = await startExtauth({
    config: file,
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    nodeId: 'tracing-test',
    otlpEndpoint: receiver.endpoint,
    logger: memoryLogger().logger,
  });
  check = checker(server.port);
  const traced = (n: number) => ({ traceparent: `00-${traceId(n)}-${ENVOY_SPAN}-01` });
  expect(httpStatus(await check('default.sa', { authorization: basic('alice', 'alice-pw'), ...traced(1) }))).toBe(200);
  expect(httpStatus(await check('default.users', { authorization: basic('bob', 'bob-pw'), ...traced(2) }))).toBe(403);
  expect(httpStatus(await check('default.users', { authorization: basic('alice', 'wrong'), ...traced(3) }))).toBe(401);
  await check('default.users', {
    authorization: basic('alice', 'alice-pw'),
    'x-b3-traceid': traceId(4),
    'x-b3-spanid': ENVOY_SPAN,
    'x-b3-sampled': '1',
  });
  check.close();
  // Closing flushes the batch.
  await server.close();
});

afterAll(async () => {
  await receiver?.close();
  await slapd?.close();
});

function tree(id: string): string[] {
  const spans = receiver.spans.filter((s) => s.traceId === id);
  const lines: string[] = [];
  const walk = (parent: string, depth: number) => {
    for (const s of spans.filter((x) => x.parentSpanId === parent)) {
      lines.push(`${'  '.repeat(depth)}${s.name}`);
      walk(s.spanId, depth + 1);
    }
  };
  walk(ENVOY_SPAN, 0);
  return lines;
}

test("a check is a server span under Envoy's: the user's bind, the service account's, then the group search", () => {
  expect(tree(traceId(1))).toEqual(['ext_authz check', '  LDAP bind', '  LDAP bind', '  LDAP group search']);
  const root = receiver.spans.find((s) => s.traceId === traceId(1) && s.name === 'ext_authz check')!;
  expect(root).toMatchObject({ service: 'sluice-extauth', kind: 2, parentSpanId: ENVOY_SPAN });
  expect(root.attributes).toMatchObject({ 'sluice.extauth.config': 'default.sa', 'sluice.extauth.status': 200 });
  for (const s of receiver.spans.filter((x) => x.traceId === traceId(1) && x.name.startsWith('LDAP')))
    expect(s.kind).toBe(3);
});

test('a denial shows where it was decided: after the search (403), or at a bind the directory refused (401)', () => {
  expect(tree(traceId(2))).toEqual(['ext_authz check', '  LDAP bind', '  LDAP group search']);
  expect(
    receiver.spans.find((s) => s.traceId === traceId(2) && s.name === 'ext_authz check')!.attributes,
  ).toMatchObject({ 'sluice.extauth.status': 403 });
  expect(tree(traceId(3))).toEqual(['ext_authz check', '  LDAP bind']);
  const bind = receiver.spans.find((s) => s.traceId === traceId(3) && s.name === 'LDAP bind')!;
  expect(bind.status).toBe(2);
});

test("B3 headers (Envoy's Zipkin tracer) give the parent when there is no traceparent", () => {
  expect(tree(traceId(4))[0]).toBe('ext_authz check');
});
