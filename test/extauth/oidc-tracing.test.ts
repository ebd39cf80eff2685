/**
 * The OIDC login's token exchange in the trace: a browser logs in through a
 * real OpenID provider (oidc-provider), and the check that took the
 * provider's callback is a server span with the code exchange as its client
 * span, exported over OTLP/HTTP to a real receiver in this process.
 */
import { startOtlpReceiver, type OtlpReceiver } from '../../harness/otlp-receiver.js';
import { logIn, startWorld, type World } from './oidc-fixture.js';

let receiver: OtlpReceiver;
let world: World | undefined;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  world = await startWorld(undefined, { otlpEndpoint: receiver.endpoint });
});

afterAll(async () => {
  await world?.close();
  await receiver?.close();
});

test('the code exchange is a client span under the check that received the callback', async () => {
  const page = await logIn(world!.browser('default.cookie'));
  expect(page.status).toBe(200);
  // Closing the sidecar flushes its batch of spans.
  await world!.close();
  world = undefined;
  const exchange = receiver.spans.find((s) => s.name === 'OIDC token exchange');
  expect(exchange).toMatchObject({ service: 'sluice-extauth', kind: 3 });
  const check = receiver.spans.find((s) => s.spanId === exchange!.parentSpanId);
  expect(check).toMatchObject({ name: 'ext_authz check', kind: 2, traceId: exchange!.traceId });
  expect(check!.attributes).toMatchObject({ 'sluice.extauth.config': 'default.cookie' });
  // The checks before the login (the redirect to the provider) made no exchange.
  expect(receiver.spans.filter((s) => s.name === 'OIDC token exchange')).toHaveLength(1);
});
