/**
 * A real OAuth 2.0 authorization server on loopback for the tests:
 * oidc-provider (a certified OpenID Connect implementation) issuing access
 * tokens by the client credentials grant, opaque by default and JWTs
 * (signed with its own keys, served at /jwks) when a resource indicator is
 * asked for, with RFC 7662 introspection. Its HTTP listener can be stopped
 * and started again on the same port while its tokens stay valid (the
 * provider and its store live on), as a provider that goes down and comes
 * back; every request path it answers is counted.
 */
import http from 'node:http';
import Provider from 'oidc-provider';
import { restartableServer } from './restartable-server.js';
import { freePort } from './slapd.js';

export const ISSUER_CLIENTS = {
  /** The gateway: introspects tokens. */
  gateway: { id: 'gateway', secret: 'gateway-secret' },
  /** A client of the API, granted `read write`. */
  api: { id: 'api-client', secret: 'api-secret' },
  /** Its tokens live two seconds. */
  shortLived: { id: 'short-lived', secret: 'short-secret' },
} as const;

export interface TokenIssuer {
  /** The issuer URL (http://127.0.0.1:PORT). */
  readonly url: string;
  /** Requests answered, by path. */
  readonly hits: Map<string, number>;
  /** An access token for the client: opaque, or a JWT for `resource` (its audience). */
  token(client: { id: string; secret: string }, options?: { scope?: string; resource?: string }): Promise<string>;
  /** Stops listening (open connections cut). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startTokenIssuer(): Promise<TokenIssuer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const client = (c: { id: string; secret: string }) => ({
    client_id: c.id,
    client_secret: c.secret,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    scope: 'read write',
  });
  const provider = new Provider(url, {
    clients: Object.values(ISSUER_CLIENTS).map(client),
    scopes: ['read', 'write'],
    features: {
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined as unknown as string,
        useGrantedResource: () => false,
        getResourceServerInfo: (_ctx: unknown, resource: string, c: { clientId: string }) => ({
          scope: 'read write',
          audience: resource,
          accessTokenFormat: 'jwt',
          accessTokenTTL: c.clientId === ISSUER_CLIENTS.shortLived.id ? 2 : 600,
        }),
      },
    },
    ttl: {
      ClientCredentials: (_ctx: unknown, _token: unknown, c: { clientId: string }) =>
        c.clientId === ISSUER_CLIENTS.shortLived.id ? 2 : 600,
    },
  });
  const hits = new Map<string, number>();
  const count = (req: http.IncomingMessage) => {
    const path = (req.url ?? '').split('?')[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
  };
  const { start, stop } = restartableServer((ready) =>
    (provider.listen(port, '127.0.0.1', ready) as http.Server).on('request', count),
  );
  await start();
  return {
    url,
    hits,
    async token(c, options = {}) {
      const form = new URLSearchParams({ grant_type: 'client_credentials' });
      if (options.scope) form.set('scope', options.scope);
      if (options.resource) form.set('resource', options.resource);
      const res = await fetch(`${url}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${c.id}:${c.secret}`).toString('base64')}`,
        },
        body: form.toString(),
      });
      const body = (await res.json()) as { access_token?: string };
      if (!res.ok || !body.access_token) throw new Error(`token request failed: ${res.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
    stop,
    start,
    close: stop,
  };
}
