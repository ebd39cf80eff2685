/**
 * The IR of AuthConfigs: each config's kind with its settings resolved
 * (Secrets read, defaults applied), for translate to write as
 * sluice.extauth.v1.AuthConfig (contract/proto/sluice/extauth/v1/). A kind
 * is one more member of AuthKindIR, resolved in compiler/resolve/extauth/
 * and compiled in compiler/translate/extauth/.
 */
import type { HashAlgorithm } from '../../contract/basic-credentials.js';
import type { Origin } from '../diagnostics.js';
import type { OAuth2IR } from './oauth2.js';

export interface LdapIR {
  address: string;
  userDnTemplate: string;
  allowedGroups: string[];
  searchFilter: string;
  membershipAttributeName: string;
  /** Present when checkGroupsWithServiceAccount is true: credentials resolved from the Secret. */
  serviceAccount?: { username: string; password: string };
  pool: { initialSize: number; maxSize: number };
  /** Gloo's disableGroupChecking: the user's bind alone decides (no search, no groups). */
  disableGroupChecking?: true;
}

export interface ApiKeyIR {
  /** Lowercase; Gloo's default `api-key` applied. */
  headerName: string;
  /** From the chosen Secrets, in Secret order: the key, its Secret's name, its Secret's other entries. */
  keys: { apiKey: string; user: string; metadata: Record<string, string> }[];
  /** Request header (lowercase) -> the Secret entry it carries. */
  headersFromMetadataEntry: Record<string, { name: string; required: boolean }>;
  /** The Secrets the keys came from (`namespace/name`), for explain; never the keys. */
  secrets: string[];
}

export interface BasicAuthIR {
  realm: string;
  algorithm: HashAlgorithm;
  users: Record<string, { salt: string; hashedPassword: string }>;
}

/** Gloo's tlsConfig to a pass-through service: PEM from its Secret, versions as Node names them. */
export interface PassThroughTlsIR {
  caPem?: string;
  certPem?: string;
  keyPem?: string;
  minVersion: 'TLSv1.2' | 'TLSv1.3';
  maxVersion: 'TLSv1.2' | 'TLSv1.3';
}

export interface PassThroughHttpIR {
  url: string;
  timeoutMs?: number;
  /** Gloo's responseHeaderTimeout; unset: only timeoutMs applies. */
  responseHeaderTimeoutMs?: number;
  /** Gloo's connectionPool, the values set (not 0). */
  connectionPool?: { maxConns?: number; idleTimeoutMs?: number };
  tls?: PassThroughTlsIR;
  request?: {
    allowedHeaders?: string[];
    headersToAdd?: Record<string, string>;
    passThroughState?: boolean;
    passThroughFilterMetadata?: boolean;
    passThroughBody?: boolean;
  };
  response?: {
    allowedUpstreamHeaders?: string[];
    allowedClientHeadersOnDenied?: string[];
    readStateFromResponse?: boolean;
    allowedUpstreamHeadersToOverwrite?: string[];
    allowedClientHeadersOnSuccess?: string[];
  };
}

export interface PassThroughIR {
  grpc?: { address: string; timeoutMs?: number; tls?: PassThroughTlsIR };
  http?: PassThroughHttpIR;
  config?: Record<string, unknown>;
  failureModeAllow: boolean;
}

export interface OpaServerIR {
  /** http://host:port */
  serverUrl: string;
  package: string;
  ruleName?: string;
}

/** One config's kind and settings, tagged by the kind's field in Gloo's AuthConfig. */
export type AuthKindIR =
  | { kind: 'ldap'; ldap: LdapIR }
  | { kind: 'apiKeyAuth'; apiKeyAuth: ApiKeyIR }
  | { kind: 'basicAuth'; basicAuth: BasicAuthIR }
  | { kind: 'passThroughAuth'; passThroughAuth: PassThroughIR }
  | { kind: 'opaServerAuth'; opaServerAuth: OpaServerIR }
  | { kind: 'jwt' }
  | { kind: 'oauth2'; oauth2: OAuth2IR };

/** One config of an AuthConfig. */
export type AuthConfigEntryIR = AuthKindIR & {
  /** Gloo's configs[].name; unset: `config_<index>`, as Gloo names it. */
  name?: string;
};

export interface AuthConfigIR {
  /** `<namespace>.<name>` */
  name: string;
  origin: Origin;
  configs: AuthConfigEntryIR[];
  /** Gloo's booleanExpr over the configs' names, checked; unset: every config in order. */
  booleanExpr?: string;
  /** Gloo's failOnRedirect. */
  failOnRedirect?: true;
}
