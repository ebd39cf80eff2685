/**
 * What `sluice explain` takes and gives: a request, the steps Envoy (and
 * the sidecars) take with it, and the answer. The steps are read from the
 * compiled messages only (see ./config.ts), so a translation bug shows here too.
 */

export interface ExplainRequest {
  method: string;
  /** Absolute URL: scheme, host (and port), path, query. */
  url: string;
  /** Header names as given; matched case-insensitively, as HTTP does. */
  headers: [string, string][];
  /** Claims of a token assumed valid for the host's provider (instead of a real token). */
  claims?: Record<string, unknown>;
  /** With `claims`: the provider (its name in options.jwt) that accepted the token; unset: the host's first. */
  claimsProvider?: string;
}

/** One answer the client may get. `upstream`: Envoy forwards the request and the upstream answers. */
export interface Outcome {
  status: number | 'upstream';
  /** The body Envoy (or a sidecar) writes; absent for `upstream`. */
  body?: string;
  headers?: Record<string, string>;
  /** Who answers: `envoy`, a filter name, `sluice-extauth`, or the upstream cluster. */
  by: string;
}

/** What one config of an AuthConfig answers a request, as explain works it out. */
export type ConfigVerdict =
  | { kind: 'allow'; why: string; headers: Record<string, string>; removed: string[] }
  | { kind: 'deny'; why: string; outcome: Outcome }
  /** A service decides; `denials`: what it may answer instead of allowing. */
  | { kind: 'open'; why: string; denials: Outcome[] };

export interface Answer extends Outcome {
  /** What this answer rests on that explain could not check (empty: it is certain). */
  assumptions: string[];
  /** The other answers possible when an assumption does not hold. */
  otherwise: Outcome[];
}

/** One stage of the request's way through the gateway. */
export interface Step {
  /** listener, path, virtual host, route, a filter name, destination. */
  stage: string;
  /** One line: what happened. */
  summary: string;
  /** Further lines: what was tried and why it did or did not match. */
  details: string[];
  /** Where Envoy documents or implements this step (docs/envoy-behaviour.md). */
  cite?: string;
}

export interface Explanation {
  request: { method: string; url: string };
  /** The proxy of a fleet whose configuration was explained (`--proxy`; default: gateway-proxy). */
  proxy: string;
  steps: Step[];
  /** Names of what matched, for tests: virtual host, route, cluster. */
  matched: { virtualHost?: string; route?: string; cluster?: string };
  answer: Answer;
}

/** What explain may do beyond reading the configuration. */
export interface ExplainOptions {
  /** Fetch remote JWKS (`--fetch-jwks`). */
  fetchJwks?: boolean;
  /** Ask the LDAP directories live (`--ldap`). */
  ldap?: boolean;
  /** With `ldap`: ask the directory at this URL, not at the address each AuthConfig names (`--ldap-address`). */
  ldapAddress?: string;
  /** Seconds since the epoch, for token times (tests); default now. */
  now?: number;
}
