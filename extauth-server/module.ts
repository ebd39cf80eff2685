/**
 * What one kind of config (a field of sluice.extauth.v1.Config's `kind`
 * oneof) implements to take part in a check: reading its settings from the
 * compiled configuration, holding what its checks share (connections,
 * clients), and checking one request. The authorizer combines the configs of
 * an AuthConfig (all in order, or Gloo's booleanExpr) from their verdicts;
 * the gRPC layer turns the final verdict into Envoy's CheckResponse.
 * docs/extauth.md describes the behaviour; extauth-server/modules/ holds the
 * modules and their registry.
 */
import type { Tracer } from '../runtime/tracing.js';
import type { ConnectionOptions } from 'node:tls';
import type { Logger } from 'pino';
import type { Pending } from '../contract/boolean-expr.js';
import type { PoolSettings } from './config-fields.js';
import type { Metrics } from './metrics.js';

/** A header to set: on the request sent upstream, or on the answer to the client. */
export interface Header {
  /** Lowercase. */
  key: string;
  value: string;
  /** Added next to a value already there, instead of replacing it. */
  append?: boolean;
}

/** What a module reads of the request Envoy asks about. */
export interface AuthRequest {
  /** context_extensions.config_ref: the AuthConfig. */
  readonly configRef: string;
  /** Request headers as Envoy sends them: lowercase names, pseudo-headers (`:path`) included. */
  readonly headers: Readonly<Record<string, string>>;
  readonly method: string;
  readonly path: string;
  readonly host: string;
  /** The request body when Envoy sends it (the ext_authz filter's with_request_body); '' otherwise. */
  readonly body: string;
  /**
   * The dynamic metadata the ext_authz filter forwards (metadata_context),
   * by filter namespace, each google.protobuf.Struct still encoded (./struct.ts reads one).
   */
  readonly filterMetadata: Readonly<Record<string, Uint8Array>>;
  /** The CheckRequest exactly as Envoy encoded it, for modules that hand the request on whole. */
  readonly raw: Uint8Array;
  /**
   * Gloo's AuthorizationRequest.State: entries the configs allowed before this
   * one set (passThroughAuth's state, apiKeyAuth's metadata). Read it; a
   * module gives its own entries in its Allow.
   */
  readonly state: Readonly<Record<string, unknown>>;
}

/** The config lets the request through. */
export interface Allow {
  kind: 'allow';
  /** Set on the request sent upstream (replacing a client's value unless `append`). */
  headers: readonly Header[];
  /** Removed from the request sent upstream (lowercase), e.g. a credential that stays at the gateway. */
  removeHeaders: readonly string[];
  /** Added to the upstream's answer to the client (e.g. a renewed session cookie). */
  responseHeaders?: readonly Header[];
  /** Who the request was allowed as, for the debug log and explain (never a secret). */
  identity?: string;
  /** State entries for the configs evaluated after this one. */
  state?: Readonly<Record<string, unknown>>;
}

/**
 * The config answers the client itself: a denial (401, 403, ...), an
 * error (500, 503), or a redirect the client is meant to follow (302 to a
 * login page, with its cookies). Envoy sends exactly this status, these
 * headers and this body.
 */
export interface Deny {
  kind: 'deny';
  /** The HTTP status the client gets. */
  status: number;
  headers: readonly Header[];
  body: string;
  /** Why, for the log (never a secret, a key or a password). */
  reason: string;
  /** A login redirect: the AuthConfig's failOnRedirect answers 401 instead. */
  redirect?: boolean;
}

export type Verdict = Allow | Deny;

/** What a server a module asks answered: a verdict, or why asking failed (unreachable, timed out, a server error). */
export type ServiceAnswer = Verdict | { failed: string };

/** A verdict now, or once the module has asked a server (a plain value keeps a promise off the path of checks that need none). */
export type { Pending };

/** One config's check, made once per configuration and called per request. */
export type Check = (request: AuthRequest) => Pending<Verdict>;

/** What a module is given when the sidecar starts: shared for its whole life. */
export interface ModuleContext {
  logger: Logger;
  metrics?: Metrics;
  /** TLS options for servers reached over TLS (`--ldap-ca`). */
  tlsOptions?: ConnectionOptions;
  /** Calls to directories and providers become spans of the check's trace (--otlp-endpoint); absent: off. */
  tracer?: Tracer;
}

/** Defaults the sidecar's flags set, applied when a module reads its settings. */
export interface SidecarDefaults {
  ldapPool: PoolSettings;
}

/**
 * A new configuration set as one module sees it, before it is in force: the
 * checks are made, nothing held by the configuration in force is released.
 */
export interface Prepared<S> {
  /** The check of one config (`settings` is one of those given to prepare). */
  check(settings: S): Check;
  /** The set is in force: release what only the previous set used. */
  commit(): void;
  /** The set was refused (this or another module could not prepare it): release what prepare made. */
  abort(): void;
}

/** A module's life in one sidecar: what its checks share across configurations. */
export interface ModuleInstance<S> {
  /** Throws (with the reason) when the set cannot be applied; then nothing changed. */
  prepare(settings: readonly S[]): Prepared<S>;
  close(): Promise<void>;
}

/** One kind of config. */
export interface AuthModule<S> {
  /** The field of sluice.extauth.v1.Config's `kind` oneof it reads, as in the proto (snake_case). */
  readonly field: string;
  /**
   * Its settings from the field's proto3 JSON (snake_case or lowerCamel
   * names), defaults applied; throws ConfigError naming `where` and the field.
   */
  parse(raw: Record<string, unknown>, where: string, defaults: SidecarDefaults): S;
  create(context: ModuleContext): ModuleInstance<S>;
}

/** A module whose checks share nothing across configurations: each config's check is made from its settings alone. */
export function stateless<S>(makeCheck: (settings: S) => Check): ModuleInstance<S> {
  return {
    prepare: (all) => {
      const checks = new Map(all.map((s) => [s, makeCheck(s)]));
      return { check: (s) => checks.get(s)!, commit() {}, abort() {} };
    },
    close: async () => {},
  };
}

export const allow = (extra: Partial<Omit<Allow, 'kind'>> = {}): Allow => ({
  kind: 'allow',
  headers: [],
  removeHeaders: [],
  ...extra,
});

export const deny = (
  status: number,
  reason: string,
  extra: Partial<Omit<Deny, 'kind' | 'status' | 'reason'>> = {},
): Deny => ({ kind: 'deny', status, reason, headers: [], body: '', ...extra });
