/**
 * envoy.filters.http.rbac, evaluated on its compiled config: the most
 * specific RBACPerRoute (or the filter's own rules), then each policy's
 * permission and principal trees against the request and the dynamic
 * metadata jwt_authn wrote. Every policy is evaluated so a denial can say
 * why each one did not match (docs/envoy-behaviour.md, 403).
 */
import type { Json } from '../translate/output.js';
import { describeString, matchHeader, matchString, perFilterConfig, type Verdict } from '../envoy/match.js';
import type { Outcome, Step } from './model.js';
import { pathOnly, type HttpRequest } from '../envoy/request.js';
import { JWT_FILTER } from './jwt.js';

export const RBAC_FILTER = 'envoy.filters.http.rbac';
export const RBAC_DENIED: Outcome = { status: 403, body: 'RBAC: access denied', by: RBAC_FILTER };
const CITE = 'docs/envoy-behaviour.md § How explain reads the configuration: rbac';

interface Context {
  req: HttpRequest;
  metadata: Json;
  listenerPort: number;
}

function all(items: Json[], evaluate: (j: Json) => Verdict): Verdict {
  const reasons: string[] = [];
  for (const item of items) {
    const v = evaluate(item);
    if (!v.ok) return v;
    reasons.push(v.why);
  }
  return { ok: true, why: reasons.join(' and ') };
}

function any(items: Json[], evaluate: (j: Json) => Verdict): Verdict {
  const reasons: string[] = [];
  for (const item of items) {
    const v = evaluate(item);
    if (v.ok) return v;
    reasons.push(v.why);
  }
  return { ok: false, why: reasons.join(' and ') || 'nothing to match' };
}

/** A ValueMatcher against one metadata value (google.protobuf.Value as JSON). */
function matchValue(m: Json, value: unknown): boolean {
  if (m.present_match !== undefined) return (value !== undefined) === (m.present_match === true);
  if (value === undefined) return false;
  if (m.string_match) return typeof value === 'string' && matchString(m.string_match as Json, value);
  if (m.bool_match !== undefined) return value === m.bool_match;
  if (m.null_match !== undefined) return value === null;
  if (m.double_match) return typeof value === 'number' && (m.double_match as Json).exact === value;
  if (m.list_match)
    return Array.isArray(value) && value.some((v) => matchValue((m.list_match as Json).one_of as Json, v));
  if (m.or_match) return ((m.or_match as Json).value_matchers as Json[]).some((vm) => matchValue(vm, value));
  throw new Error(`metadata value matcher ${JSON.stringify(m)} is not one explain knows`);
}

function describeValue(m: Json): string {
  if (m.string_match) return describeString(m.string_match as Json);
  if (m.present_match !== undefined) return m.present_match ? 'present' : 'absent';
  if (m.list_match) return `a list with an element ${describeValue((m.list_match as Json).one_of as Json)}`;
  if (m.bool_match !== undefined) return `the boolean ${String(m.bool_match)}`;
  return JSON.stringify(m);
}

/** envoy.type.matcher.v3.MetadataMatcher on the request's dynamic metadata; a jwt_authn payload path reads as a claim. */
function matchMetadata(m: Json, ctx: Context): Verdict {
  const filter = m.filter as string;
  const keys = ((m.path as Json[]) ?? []).map((p) => p.key as string);
  let value: unknown = ctx.metadata[filter];
  for (const k of keys)
    value = value && typeof value === 'object' && !Array.isArray(value) ? (value as Json)[k] : undefined;
  // Below the jwt_authn namespace the first key is the provider whose payload it is (its name).
  // A path of several steps below the payload is a nested claim (nestedClaimDelimiter); one step is a name as written, dots and all.
  const jwt = filter === JWT_FILTER && keys.length >= 2;
  const label = !jwt
    ? `metadata ${filter}/${keys.join('.')}`
    : `${keys.length === 2 ? `claim ${keys[1]}` : `nested claim ${keys.slice(1).join(' › ')}`} of provider ${keys[0]}`;
  const ok = matchValue(m.value as Json, value) !== (m.invert === true);
  const payloads = ctx.metadata[JWT_FILTER] as Json | undefined;
  const shown =
    value !== undefined
      ? JSON.stringify(value)
      : jwt && payloads?.[keys[0]!] === undefined
        ? payloads === undefined
          ? 'absent (no verified token)'
          : `absent (no token of provider ${keys[0]} verified)`
        : 'absent';
  return { ok, why: `${label} ${shown} ${ok ? 'is' : 'is not'} ${describeValue(m.value as Json)}` };
}

function urlPath(m: Json, ctx: Context): Verdict {
  const path = pathOnly(ctx.req.path);
  const sm = (m.path as Json | undefined) ?? {};
  const ok = matchString(sm, path);
  return { ok, why: `path ${JSON.stringify(path)} is ${ok ? '' : 'not '}${describeString(sm)}` };
}

function permission(p: Json, ctx: Context): Verdict {
  if (p.any === true) return { ok: true, why: 'any request' };
  if (p.and_rules) return all((p.and_rules as Json).rules as Json[], (r) => permission(r, ctx));
  if (p.or_rules) return any((p.or_rules as Json).rules as Json[], (r) => permission(r, ctx));
  if (p.not_rule) {
    const v = permission(p.not_rule as Json, ctx);
    return { ok: !v.ok, why: `not (${v.why})` };
  }
  if (p.header) return matchHeader(p.header as Json, ctx.req);
  if (p.url_path) return urlPath(p.url_path as Json, ctx);
  if (p.metadata) return matchMetadata(p.metadata as Json, ctx);
  if (p.destination_port !== undefined) {
    const ok = Number(p.destination_port) === ctx.listenerPort;
    return { ok, why: `destination port ${ctx.listenerPort} ${ok ? 'is' : 'is not'} ${String(p.destination_port)}` };
  }
  throw new Error(`RBAC permission ${JSON.stringify(p)} is not one explain knows`);
}

function principal(p: Json, ctx: Context): Verdict {
  if (p.any === true) return { ok: true, why: 'anyone' };
  if (p.and_ids) return all((p.and_ids as Json).ids as Json[], (r) => principal(r, ctx));
  if (p.or_ids) return any((p.or_ids as Json).ids as Json[], (r) => principal(r, ctx));
  if (p.not_id) {
    const v = principal(p.not_id as Json, ctx);
    return { ok: !v.ok, why: `not (${v.why})` };
  }
  if (p.header) return matchHeader(p.header as Json, ctx.req);
  if (p.url_path) return urlPath(p.url_path as Json, ctx);
  if (p.metadata) return matchMetadata(p.metadata as Json, ctx);
  // Plain-text listener: no peer certificate.
  if (p.authenticated) return { ok: false, why: 'no TLS peer certificate (plain-text listener)' };
  throw new Error(`RBAC principal ${JSON.stringify(p)} is not one explain knows`);
}

export interface RbacResult {
  step: Step;
  reply?: Outcome;
}

export function evaluateRbac(
  filter: Json,
  levels: Parameters<typeof perFilterConfig>[1],
  req: HttpRequest,
  metadata: Json,
  listenerPort: number,
): RbacResult {
  const step: Step = { stage: 'rbac', summary: '', details: [], cite: CITE };
  const per = perFilterConfig(RBAC_FILTER, levels);
  // RBACPerRoute without `rbac` disables the filter; the filter's config without `rules` enforces nothing (rbac.proto).
  const rules = per
    ? ((per.config.rbac as Json | undefined)?.rules as Json | undefined)
    : (filter.rules as Json | undefined);
  if (!rules) {
    step.summary = per
      ? `no policies on this ${per.level} (RBACPerRoute without rbac: disabled)`
      : 'no policies (the filter enforces nothing)';
    return { step };
  }
  const action = (rules.action as string | undefined) ?? 'ALLOW';
  const ctx: Context = { req, metadata, listenerPort };
  let matched: string | undefined;
  for (const [name, policy] of Object.entries((rules.policies as Json | undefined) ?? {})) {
    const pol = policy as Json;
    const perm = any(pol.permissions as Json[], (p) => permission(p, ctx));
    const princ = perm.ok ? any(pol.principals as Json[], (p) => principal(p, ctx)) : undefined;
    if (perm.ok && princ?.ok) {
      matched ??= name;
      step.details.push(`policy ${name}: matches (${perm.why}; ${princ.why})`);
    } else {
      step.details.push(`policy ${name}: no match: ${perm.ok ? princ!.why : perm.why}`);
    }
  }
  if (action === 'LOG') {
    step.summary = 'LOG policies only: allowed';
    return { step };
  }
  const denied = action === 'ALLOW' ? matched === undefined : matched !== undefined;
  step.summary =
    action === 'ALLOW'
      ? denied
        ? 'denied: no ALLOW policy matches'
        : `allowed by policy ${matched}`
      : denied
        ? `denied by DENY policy ${matched}`
        : 'allowed: no DENY policy matches';
  return denied ? { step, reply: RBAC_DENIED } : { step };
}
