/**
 * A real OpenID provider for tests: `oidc-provider` (a certified
 * implementation nobody here wrote) on a free 127.0.0.1 port, with its
 * development login and consent pages (any login, any password), PKCE
 * required, refresh tokens issued, and short-lived tokens for the client
 * `short`. stop() and start() take it off the network and back on the same
 * port with the same state (grants, codes, keys).
 */
import type { Server } from 'node:http';
import Provider from 'oidc-provider';
import { restartableServer } from './restartable-server.js';
import { freePort } from './slapd.js';

export interface TestClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

export interface OpenIdProvider {
  readonly issuer: string;
  readonly port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Access and ID tokens of client `short` last this long (seconds). */
export const SHORT_TTL_S = 2;

export async function startOpenIdProvider(clients: TestClient[]): Promise<OpenIdProvider> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const ttl = (long: number) => (_ctx: unknown, _token: unknown, client: { clientId: string }) =>
    client.clientId === 'short' ? SHORT_TTL_S : long;
  // oidc-provider's notices about its development defaults (in-memory adapter, dev keys and forms) are what a test provider uses: not printed.
  const { warn, info } = console;
  console.warn = console.info = () => undefined;
  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uris: [c.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    })),
    pkce: { required: () => true, methods: ['S256'] },
    cookies: { keys: ['oidc-provider test cookie key'] },
    issueRefreshToken: async () => true,
    ttl: {
      AccessToken: ttl(3600),
      IdToken: ttl(3600),
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
      RefreshToken: 3600,
    } as never,
    // Every claim of the granted scopes in the ID token (email too), as the identity headers read it.
    conformIdTokenClaims: false,
    claims: { openid: ['sub'], email: ['email'] },
    findAccount: async (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: async () => ({ sub: id, email: `${id}@example.org` }),
    }),
  });
  Object.assign(console, { warn, info });
  const { start, stop } = restartableServer((ready) => provider.listen(port, '127.0.0.1', ready) as Server);
  await start();
  return { issuer, port, start, stop, close: stop };
}
