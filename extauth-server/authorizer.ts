/**
 * The decision for one request: the AuthConfig that config_ref names, its
 * configs asked in order (every one must allow the request) or as Gloo's
 * booleanExpr combines them, their verdicts merged into one. Holds the
 * configuration in force and one instance of each module (modules/index.ts).
 */
import type { Tracer } from '../runtime/tracing.js';
import type { Logger } from 'pino';
import type { ConnectionOptions } from 'node:tls';
import { evaluateBoolExpr, type BoolExpr } from '../contract/boolean-expr.js';
import { NO_CONFIGURATION_YET } from '../runtime/health.js';
import type { AuthConfig } from './config.js';
import type { Metrics } from './metrics.js';
import {
  allow,
  deny,
  type Allow,
  type AuthModule,
  type AuthRequest,
  type Check,
  type Deny,
  type Header,
  type ModuleInstance,
  type Pending,
  type Prepared,
  type Verdict,
} from './module.js';
import { MODULES } from './modules/index.js';
import { ldapModule, type LdapInstance } from './modules/ldap.js';

export interface AuthorizerOptions {
  logger: Logger;
  metrics?: Metrics;
  /** TLS options for servers reached over TLS (e.g. a CA bundle for ldaps://). */
  tlsOptions?: ConnectionOptions;
  tracer?: Tracer;
}

/** An AuthConfig ready to check requests: each config's check, by name and in order. */
interface Compiled {
  config: AuthConfig;
  checks: { name: string; check: Check }[];
  byName: Map<string, Check>;
}

/** A config whose answer is an error (5xx): it ends the check, whatever the expression (fail closed). */
class Failed {
  constructor(readonly verdict: Deny) {}
}

/** Unless it throws (an internal error, 500), `check` as a verdict. */
function ask(check: Check, request: AuthRequest): Pending<Verdict> {
  try {
    return check(request);
  } catch (err) {
    return deny(500, `internal error: ${(err as Error).message}`);
  }
}

function then<T, U>(value: Pending<T>, next: (v: T) => Pending<U>): Pending<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/**
 * Allowed configs' answers as one: headers in the order the configs were
 * asked, where a header one config replaces keeps the first config's value
 * (the identity established first, as the first ldap config names the user).
 */
function merge(allows: Allow[]): Allow {
  if (allows.length === 1) return allows[0]!;
  const headers: Header[] = [];
  const replaced = new Set<string>();
  for (const h of allows.flatMap((a) => a.headers)) {
    if (!h.append) {
      if (replaced.has(h.key)) continue;
      replaced.add(h.key);
    }
    headers.push(h);
  }
  const identity = allows.find((a) => a.identity !== undefined)?.identity;
  const responseHeaders = allows.flatMap((a) => a.responseHeaders ?? []);
  return allow({
    headers,
    removeHeaders: [...new Set(allows.flatMap((a) => a.removeHeaders))],
    ...(responseHeaders.length ? { responseHeaders } : {}),
    ...(identity !== undefined ? { identity } : {}),
  });
}

/** The request as the next config sees it: with the state an allowed config added. */
function withState(request: AuthRequest, verdict: Allow): AuthRequest {
  return verdict.state && Object.keys(verdict.state).length
    ? { ...request, state: { ...request.state, ...verdict.state } }
    : request;
}

/** Every config in order; the first that does not allow the request answers it. */
function allInOrder(
  checks: Compiled['checks'],
  request: AuthRequest,
  from = 0,
  allows: Allow[] = [],
): Pending<Verdict> {
  // One config (the usual case): its verdict as it is, so a module's repeated verdict keeps its encoded response.
  if (checks.length === 1) return ask(checks[0]!.check, request);
  for (let i = from; i < checks.length; i++) {
    const v = ask(checks[i]!.check, request);
    if (v instanceof Promise) {
      return v.then((verdict) =>
        verdict.kind === 'deny'
          ? verdict
          : allInOrder(checks, withState(request, verdict), i + 1, [...allows, verdict]),
      );
    }
    if (v.kind === 'deny') return v;
    allows.push(v);
    request = withState(request, v);
  }
  return merge(allows);
}

/**
 * Gloo's booleanExpr: each named config asked when the expression still
 * depends on it, at most once. Allowed: the allowed configs' answers merged.
 * Not allowed: the denial of the last config that denied, or 403 when the
 * expression is false without any denial (`!a` with `a` allowed). A config
 * that answers an error ends the check with it.
 */
function byExpression(compiled: Compiled, expr: BoolExpr, request: AuthRequest): Pending<Verdict> {
  const allows: Allow[] = [];
  let lastDenial: Deny | undefined;
  let current = request;
  const value = (name: string): Pending<boolean> =>
    then(ask(compiled.byName.get(name)!, current), (verdict) => {
      if (verdict.kind === 'deny') {
        if (verdict.status >= 500) throw new Failed(verdict);
        lastDenial = verdict;
        return false;
      }
      allows.push(verdict);
      current = withState(current, verdict);
      return true;
    });
  const decide = (allowed: boolean): Verdict =>
    allowed ? merge(allows.length ? allows : [allow()]) : (lastDenial ?? deny(403, 'booleanExpr is false'));
  const failed = (err: unknown): Verdict => {
    if (err instanceof Failed) return err.verdict;
    throw err;
  };
  try {
    const result = evaluateBoolExpr(expr, value);
    return result instanceof Promise ? result.then(decide, failed) : decide(result);
  } catch (err) {
    return failed(err);
  }
}

export class Authorizer {
  private configs = new Map<string, Compiled>();
  private readonly instances: Map<AuthModule<unknown>, ModuleInstance<unknown>>;
  private loaded = false;

  constructor(private readonly opts: AuthorizerOptions) {
    this.instances = new Map(
      MODULES.map((m) => [
        m,
        m.create({
          logger: opts.logger,
          metrics: opts.metrics,
          tlsOptions: opts.tlsOptions,
          ...(opts.tracer ? { tracer: opts.tracer } : {}),
        }),
      ]),
    );
  }

  /** Whether a configuration has been received (file read or first xDS response). */
  get ready(): boolean {
    return this.loaded;
  }

  /**
   * Replaces the whole set (xDS state of the world). All or nothing: when a
   * module cannot prepare its part (e.g. an LDAP pool cannot be made), this
   * throws and the previous configuration stays in force.
   */
  setConfigs(configs: AuthConfig[]): void {
    const prepared = new Map<AuthModule<unknown>, Prepared<unknown>>();
    try {
      for (const [module, instance] of this.instances) {
        const settings = configs.flatMap((c) => c.configs.filter((e) => e.module === module).map((e) => e.settings));
        // Every module, also one no config uses any more: it releases what the previous set held.
        prepared.set(module, instance.prepare(settings));
      }
    } catch (err) {
      for (const p of prepared.values()) p.abort();
      throw err;
    }
    this.configs = new Map(
      configs.map((config) => {
        const checks = config.configs.map((e) => ({ name: e.name, check: prepared.get(e.module)!.check(e.settings) }));
        return [config.name, { config, checks, byName: new Map(checks.map((c) => [c.name, c.check])) }];
      }),
    );
    for (const p of prepared.values()) p.commit();
    this.loaded = true;
    this.opts.logger.info({ authConfigs: [...this.configs.keys()] }, 'configuration applied');
  }

  /** The LDAP pools, for the pool gauge. */
  poolStats() {
    return (this.instances.get(ldapModule as AuthModule<unknown>) as LdapInstance).poolStats();
  }

  async close(): Promise<void> {
    await Promise.all([...this.instances.values()].map((i) => i.close()));
  }

  /** The verdict for one request. */
  check(request: AuthRequest): Pending<Verdict> {
    // Not heard from the control plane yet: transient, as a directory that is down (503, fail closed), not a fault.
    if (!this.loaded) return deny(503, NO_CONFIGURATION_YET);
    const compiled = request.configRef ? this.configs.get(request.configRef) : undefined;
    if (!compiled) return deny(500, `unknown config_ref "${request.configRef}"`);
    if (!compiled.checks.length) return deny(500, `AuthConfig ${compiled.config.name} has no configs`);
    const expr = compiled.config.booleanExpr;
    const verdict = expr ? byExpression(compiled, expr, request) : allInOrder(compiled.checks, request);
    return compiled.config.failOnRedirect ? then(verdict, failOnRedirect) : verdict;
  }
}

/** Gloo's failOnRedirect: a client that cannot follow a login redirect gets 401 instead. */
export function failOnRedirect(verdict: Verdict): Verdict {
  return verdict.kind === 'deny' && verdict.redirect
    ? deny(401, `${verdict.reason} (failOnRedirect: 401 instead of the redirect)`)
    : verdict;
}
