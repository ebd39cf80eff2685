/** The IR of an `oauth2.accessTokenValidation` config: Secrets read, defaults applied. */
export interface AccessTokenIR {
  introspection?: {
    url: string;
    clientId?: string;
    /** From the clientSecretRef Secret; absent with disableClientSecret or without clientId. */
    clientSecret?: string;
    userIdAttributeName?: string;
  };
  jwt?: {
    remoteJwks?: { url: string; refreshIntervalMs?: number };
    /** The JWKS document as written (checked to be one). */
    localJwks?: string;
    issuer?: string;
    audiences: string[];
  };
  userinfoUrl?: string;
  /** Gloo's default 10 minutes applied; 0: results are not kept. */
  cacheTimeoutMs: number;
  requiredScopes: string[];
  claimsToHeaders: { claim: string; header: string; append: boolean }[];
}
