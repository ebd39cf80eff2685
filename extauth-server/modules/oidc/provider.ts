/**
 * One OpenID provider as a client sees it: its metadata discovered at
 * <issuer>/.well-known/openid-configuration (openid-client), the discovery
 * override applied, asked again every poll interval (every second while the
 * provider has not answered yet, so a provider that comes back is used
 * within about a second), its JWKS fetched and cached by jose. The code
 * exchange and the refresh go through openid-client; the ID token's
 * signature is verified with jose against the JWKS.
 */
import { NO_TRACING, type Tracer } from '../../../runtime/tracing.js';
import * as client from 'openid-client';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { Logger } from 'pino';
import type { OidcSettings } from './settings.js';

const RETRY_MS = 1000;
const TIMEOUT_S = 5;

/** Why a provider exchange failed: it refused (an OAuth error, a token that does not verify), or could not be reached. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly unreachable: boolean,
  ) {
    super(message);
  }
}

export interface Tokens {
  idToken: string;
  accessToken: string;
  refreshToken?: string;
  /** When the session needs refreshing: the earlier of the access token's and the ID token's expiry (ms since the epoch). */
  expiresAt: number;
  claims: JWTPayload;
}

/** Whether a failure is the provider being unreachable (down, timing out, answering 5xx) rather than refusing. */
function unreachable(err: unknown): boolean {
  for (
    let e = err as { name?: string; code?: string; message?: string; cause?: unknown; status?: number } | undefined;
    e;
    e = e.cause as typeof e
  ) {
    if (e instanceof Response) return e.status >= 500;
    if (e.name === 'AbortError' || e.name === 'TimeoutError') return true;
    if (e.name === 'TypeError' && /fetch failed/.test(e.message ?? '')) return true;
    if (typeof e.code === 'string' && /^(ECONN|ENOTFOUND|EAI_|ETIMEDOUT|EHOSTUNREACH|UND_ERR)/.test(e.code))
      return true;
    if (typeof e.status === 'number' && e.status >= 500) return true;
    if (typeof e !== 'object') return false;
  }
  return false;
}

/** An error's description for a denial's reason: the OAuth error code or the check that failed, never a token. */
function describe(err: unknown): string {
  const e = err as { error?: string; message?: string; cause?: { message?: unknown } };
  if (e.error) return `the provider answered ${e.error}`;
  // openid-client wraps oauth4webapi's error, whose message names the check that failed ("aud" claim, nonce, ...).
  const inner = typeof e.cause?.message === 'string' ? `: ${e.cause.message.slice(0, 200)}` : '';
  return `${e.message?.split('\n')[0]?.slice(0, 200) ?? String(err)}${inner}`;
}

export class Provider {
  private config?: client.Configuration;
  private jwks?: ReturnType<typeof createRemoteJWKSet>;
  private timer?: NodeJS.Timeout;
  private discovering = false;
  private closed = false;

  constructor(
    private readonly s: OidcSettings,
    private readonly logger: Logger,
    private readonly tracer: Tracer = NO_TRACING,
  ) {
    void this.discover();
  }

  /** The provider's configuration, once discovered. */
  get ready(): client.Configuration | undefined {
    return this.config;
  }

  private clientAuth(): client.ClientAuth {
    const { clientSecret } = this.s;
    if (!clientSecret) return client.None();
    const methods = this.s.discoveryOverride.authMethods;
    return methods.length && !methods.includes('client_secret_basic') && methods.includes('client_secret_post')
      ? client.ClientSecretPost(clientSecret)
      : client.ClientSecretBasic(clientSecret);
  }

  private async discover(): Promise<void> {
    if (this.discovering || this.closed) return;
    this.discovering = true;
    let next = RETRY_MS;
    try {
      const found = await client.discovery(new URL(this.s.issuerUrl), this.s.clientId, undefined, this.clientAuth(), {
        execute: [client.allowInsecureRequests],
        timeout: TIMEOUT_S,
      });
      const o = this.s.discoveryOverride;
      // The metadata as published (serverMetadata() adds helper methods).
      const metadata: client.ServerMetadata = {
        ...(JSON.parse(JSON.stringify(found.serverMetadata())) as client.ServerMetadata),
        ...(o.authEndpoint ? { authorization_endpoint: o.authEndpoint } : {}),
        ...(o.tokenEndpoint ? { token_endpoint: o.tokenEndpoint } : {}),
        ...(o.jwksUri ? { jwks_uri: o.jwksUri } : {}),
        ...(o.idTokenAlgs.length ? { id_token_signing_alg_values_supported: o.idTokenAlgs } : {}),
      };
      const config = new client.Configuration(metadata, this.s.clientId, undefined, this.clientAuth());
      client.allowInsecureRequests(config);
      config.timeout = TIMEOUT_S;
      if (!metadata.jwks_uri) throw new Error('the provider publishes no jwks_uri');
      if (!this.jwks || this.config?.serverMetadata().jwks_uri !== metadata.jwks_uri)
        this.jwks = createRemoteJWKSet(new URL(metadata.jwks_uri), { timeoutDuration: TIMEOUT_S * 1000 });
      if (!this.config) this.logger.info({ issuer: this.s.issuerUrl }, 'OpenID provider discovered');
      this.config = config;
      next = this.s.discoveryPollIntervalMs;
    } catch (err) {
      // Until it answers, every second; afterwards the metadata in hand stays in use and the poll is retried.
      this.logger.warn({ issuer: this.s.issuerUrl, err: describe(err) }, 'OpenID provider discovery failed');
    } finally {
      this.discovering = false;
      if (!this.closed) {
        this.timer = setTimeout(() => void this.discover(), next);
        this.timer.unref();
      }
    }
  }

  authorizationUrl(params: Record<string, string>): URL {
    return client.buildAuthorizationUrl(this.config!, { ...this.s.authEndpointQueryParams, ...params });
  }

  /** The code of the callback exchanged, the ID token checked (claims by openid-client, signature by jose). */
  async exchange(callbackUrl: URL, checks: { state: string; nonce: string; verifier: string }): Promise<Tokens> {
    const config = this.config!;
    let response;
    try {
      response = await this.tracer.span(
        'OIDC token exchange',
        () =>
          client.authorizationCodeGrant(
            config,
            callbackUrl,
            {
              pkceCodeVerifier: checks.verifier,
              expectedState: checks.state,
              expectedNonce: checks.nonce,
              idTokenExpected: true,
            },
            { ...this.s.tokenEndpointParams, redirect_uri: `${this.s.appUrl}${this.s.callbackPath}` },
          ),
        'client',
      );
    } catch (err) {
      throw new ProviderError(`code exchange failed: ${describe(err)}`, unreachable(err));
    }
    return this.tokens(response, undefined);
  }

  /** New tokens for a refresh token; the ID token kept when the provider sends none. */
  async refresh(refreshToken: string, previous: Tokens): Promise<Tokens> {
    let response;
    try {
      response = await this.tracer.span(
        'OIDC token refresh',
        () => client.refreshTokenGrant(this.config!, refreshToken, this.s.tokenEndpointParams),
        'client',
      );
    } catch (err) {
      throw new ProviderError(`refresh failed: ${describe(err)}`, unreachable(err));
    }
    return this.tokens(response, previous);
  }

  private async tokens(r: client.TokenEndpointResponse, previous: Tokens | undefined): Promise<Tokens> {
    const idToken = r.id_token ?? previous?.idToken;
    if (!idToken) throw new ProviderError('the provider sent no ID token', false);
    let claims: JWTPayload;
    if (r.id_token) {
      try {
        ({ payload: claims } = await jwtVerify(idToken, this.jwks!, {
          issuer: this.config!.serverMetadata().issuer,
          audience: this.s.clientId,
          ...(this.s.discoveryOverride.idTokenAlgs.length ? { algorithms: this.s.discoveryOverride.idTokenAlgs } : {}),
        }));
      } catch (err) {
        throw new ProviderError(`ID token rejected: ${describe(err)}`, unreachable(err));
      }
    } else claims = previous!.claims;
    const accessExpiry = r.expires_in !== undefined ? Date.now() + r.expires_in * 1000 : Infinity;
    // A refresh without a new ID token: the access token alone says how long the session lasts.
    const idExpiry = r.id_token && typeof claims.exp === 'number' ? claims.exp * 1000 : Infinity;
    return {
      idToken,
      accessToken: r.access_token,
      ...((r.refresh_token ?? previous?.refreshToken)
        ? { refreshToken: r.refresh_token ?? previous!.refreshToken! }
        : {}),
      expiresAt: Math.min(accessExpiry, idExpiry),
      claims,
    };
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }
}
