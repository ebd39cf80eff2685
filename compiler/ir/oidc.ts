/**
 * The IR of `oauth2.oidcAuthorizationCode`: Gloo's defaults applied, the
 * Secrets read (client secret, cookie keys), durations in milliseconds.
 * Field for field what sluice.extauth.v1.OidcAuthorizationCode carries.
 */
export interface OidcClaimHeaderIR {
  claim: string;
  header: string;
  append: boolean;
}

export interface OidcIR {
  clientId: string;
  /** Empty: a public client (disableClientSecret). */
  clientSecret: string;
  issuerUrl: string;
  authEndpointQueryParams: Record<string, string>;
  tokenEndpointParams: Record<string, string>;
  /** The origin (scheme://host[:port]) of appUrl. */
  appUrl: string;
  callbackPath: string;
  logoutPath?: string;
  afterLogoutUrl: string;
  /** `openid` first. */
  scopes: string[];
  session: {
    failOnFetchFailure: boolean;
    cookie: {
      name: string;
      maxAgeSeconds: number;
      secure: boolean;
      httpOnly: boolean;
      path: string;
      domain?: string;
      sameSite?: 'Lax' | 'Strict' | 'None';
    };
    /** The first seals; every one opens. Empty: the sidecar's own key. */
    cipherKeys: string[];
    /** The Secret the keys came from (`namespace/name`), for explain; never the keys. */
    cipherSecret?: string;
    allowRefreshing: boolean;
    preExpiryBufferMs: number;
    targetDomain?: string;
    redis?: { address: string; db: number; keyPrefix: string };
  };
  headers: { idTokenHeader?: string; accessTokenHeader?: string; useBearerSchema: boolean };
  discoveryOverride: {
    authEndpoint?: string;
    tokenEndpoint?: string;
    jwksUri?: string;
    idTokenAlgs?: string[];
    authMethods?: string[];
  };
  discoveryPollIntervalMs: number;
  identityClaimsToHeaders: OidcClaimHeaderIR[];
  accessClaimsToHeaders: OidcClaimHeaderIR[];
}
