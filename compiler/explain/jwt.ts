/**
 * envoy.filters.http.jwt_authn, evaluated on its compiled config: the
 * requirement the route selects, each provider's token locations, and for
 * each token Envoy's checks in Envoy's order (parse, issuer, time,
 * audiences, signature; docs/envoy-behaviour.md). Signatures are verified
 * with jose against the provider's `local_jwks`; a `remote_jwks` is fetched
 * only when asked (--fetch-jwks), as Envoy fetches it: through its cluster
 * (an http URL goes to the cluster's first endpoint, with the URL's host as
 * Host), so a key server on loopback answers when the cluster says so. The
 * 401 bodies are Envoy's status texts.
 */
import type { Json } from '../translate/output.js';
import { matchRoute, perFilterConfig } from '../envoy/match.js';
import type { ExplainRequest, Outcome, Step } from './model.js';
import type { HttpRequest } from '../envoy/request.js';
import { extractTokens, parse, STATUS_TEXT, type Status } from './jwt-token.js';
import { providerKeys, verifySignature, type JwtOptions } from './jwt-keys.js';

export const JWT_FILTER = 'envoy.filters.http.jwt_authn';
const CITE = 'docs/envoy-behaviour.md § How explain reads the configuration: jwt_authn';

const CLOCK_SKEW = 60;

/** What jwt_authn did with the request. */
export interface JwtResult {
  step: Step;
  /** Envoy's local reply, when the filter stops the request. */
  reply?: Outcome;
  /** A check explain could not make (remote keys not fetched): the answer assumes it passes. */
  assumption?: { text: string; otherwise: Outcome[] };
  /** Dynamic metadata the filter writes (`payload_in_metadata`), for RBAC. */
  metadata: Json;
  /** Headers removed before the request goes upstream (a verified token's header, `forward: false`). */
  removedHeaders: string[];
  /** Headers set from the accepted token's claims (`claim_to_headers`). */
  addedHeaders: Record<string, string>;
  /** The accepting provider cleared the route cache: the route is chosen again. */
  clearRouteCache?: boolean;
}

interface ProviderRun {
  status: Status;
  lines: string[];
  payload?: Json;
  header?: string;
  /** Set when the signature could not be checked (remote keys not fetched). */
  unchecked?: string;
}

function describeClaims(payload: Json, now: number): string {
  const parts = Object.entries(payload).map(([k, v]) => {
    if ((k === 'exp' || k === 'nbf' || k === 'iat') && typeof v === 'number')
      return `${k}=${new Date(v * 1000).toISOString()}${k === 'exp' ? (v < now ? ' (past)' : '') : ''}`;
    return `${k}=${JSON.stringify(v)}`;
  });
  return parts.join(' ');
}

/** One provider's authenticator (authenticator.cc): every token it finds must pass, checked last found first. */
async function runProvider(name: string, provider: Json, req: HttpRequest, options: JwtOptions): Promise<ProviderRun> {
  const { tokens, places } = extractTokens(provider, req);
  const lines: string[] = [];
  if (tokens.length === 0)
    return { status: 'JwtMissed', lines: [`provider ${name}: no token in ${places.join(', ')}`] };
  const now = options.now ?? Math.floor(Date.now() / 1000);
  let last: ProviderRun | undefined;
  for (const token of [...tokens].reverse()) {
    const at = `provider ${name}: token in ${token.where}`;
    const parsed = parse(token.value);
    if (typeof parsed === 'string')
      return { status: parsed, lines: [...lines, `${at} does not parse: ${STATUS_TEXT[parsed]}`] };
    const { header, payload } = parsed;
    lines.push(
      `${at}: alg ${header.alg as string}${header.kid ? ` kid ${JSON.stringify(header.kid)}` : ''}; claims ${describeClaims(payload, now)}`,
    );
    const issuer = (provider.issuer as string | undefined) ?? '';
    if (issuer && payload.iss !== issuer)
      return {
        status: 'JwtUnknownIssuer',
        lines: [
          ...lines,
          `issuer ${JSON.stringify(payload.iss ?? '(none)')} is not the provider's ${JSON.stringify(issuer)}`,
        ],
      };
    const skew = Number(provider.clock_skew_seconds ?? 0) || CLOCK_SKEW;
    if (typeof payload.nbf === 'number' && now + skew < payload.nbf)
      return { status: 'JwtNotYetValid', lines: [...lines, `nbf is more than ${skew}s ahead`] };
    if (typeof payload.exp === 'number' && now > payload.exp + skew)
      return { status: 'JwtExpired', lines: [...lines, `exp is more than ${skew}s (clock skew) in the past`] };
    const audiences = (provider.audiences as string[] | undefined) ?? [];
    if (audiences.length > 0) {
      const aud =
        payload.aud === undefined
          ? []
          : Array.isArray(payload.aud)
            ? (payload.aud as string[])
            : [payload.aud as string];
      if (!aud.some((a) => audiences.includes(a)))
        return {
          status: 'JwtAudienceNotAllowed',
          lines: [...lines, `no audience of ${JSON.stringify(aud)} is one of ${JSON.stringify(audiences)}`],
        };
    }
    const keys = await providerKeys(provider, options);
    if (keys.status)
      return { status: keys.status, lines: [...lines, `keys: ${keys.source}: ${STATUS_TEXT[keys.status]}`] };
    let unchecked: string | undefined;
    if (!keys.keys) {
      unchecked = `the signature (keys: ${keys.source})`;
      lines.push(`issuer and times good; signature not checked: ${keys.source}`);
    } else {
      const sig = await verifySignature(token.value, header, keys.keys);
      if (sig.status !== 'Ok') return { status: sig.status, lines: [...lines, `keys: ${keys.source}: ${sig.why}`] };
      lines.push(`issuer and times good; ${sig.why}`);
    }
    last = { status: 'Ok', lines, payload, header: token.header, unchecked: unchecked ?? last?.unchecked };
  }
  return last!;
}

interface Verification {
  status: Status;
  lines: string[];
  /** The provider whose token passed, with its payload. */
  ok?: { provider: Json; payload: Json; header?: string };
  unchecked?: string;
}

/** A JwtRequirement, as verifier.cc composes them. */
async function verifyRequirement(
  req: Json,
  providers: Json,
  request: HttpRequest,
  options: JwtOptions,
): Promise<Verification> {
  const one = async (name: string): Promise<Verification> => {
    const provider = providers[name] as Json | undefined;
    if (!provider) return { status: 'JwtUnknownIssuer', lines: [`provider ${name} is not configured`] };
    const sanitized = sanitizeClaimHeaders(name, provider, request);
    const run = await runProvider(name, provider, request, options);
    return {
      status: run.status,
      lines: [...sanitized, ...run.lines],
      ...(run.payload ? { ok: { provider, payload: run.payload, header: run.header } } : {}),
      ...(run.unchecked ? { unchecked: run.unchecked } : {}),
    };
  };
  if (typeof req.provider_name === 'string') return one(req.provider_name);
  if (req.provider_and_audiences) return one((req.provider_and_audiences as Json).provider_name as string);
  if (req.requires_all) {
    const lines: string[] = [];
    const results: Verification[] = [];
    for (const child of ((req.requires_all as Json).requirements as Json[]) ?? []) {
      const r = await verifyRequirement(child, providers, request, options);
      lines.push(...r.lines);
      results.push(r);
      if (r.status !== 'Ok') return { ...r, lines: [...lines, 'requires_all: this provider did not accept'] };
    }
    return {
      status: 'Ok',
      lines,
      ok: results.find((r) => r.ok)?.ok,
      unchecked: results.find((r) => r.unchecked)?.unchecked,
    };
  }
  if (req.requires_any) {
    const children = ((req.requires_any as Json).requirements as Json[]) ?? [];
    // AnyVerifierImpl: allow_missing and allow_missing_or_failed are not verifiers of their own but a verdict on the others' failure.
    const allow = children.some((c) => c.allow_missing_or_failed !== undefined)
      ? 'allow_missing_or_failed'
      : children.some((c) => c.allow_missing !== undefined)
        ? 'allow_missing'
        : undefined;
    const verifiers = children.filter((c) => c.allow_missing === undefined && c.allow_missing_or_failed === undefined);
    if (verifiers.length === 0 && allow) return verifyRequirement({ [allow]: {} }, providers, request, options);
    return anyOf(verifiers, allow, providers, request, options);
  }
  // Alone, each reads the tokens of every provider (AllowFailedVerifierImpl, AllowMissingVerifierImpl); explain tries each
  // provider on its own token locations, which differs only for a token found where another issuer's provider looks.
  if (req.allow_missing_or_failed !== undefined || req.allow_missing !== undefined) {
    const allow = req.allow_missing_or_failed !== undefined ? 'allow_missing_or_failed' : 'allow_missing';
    return anyOf(
      Object.keys(providers).map((name) => ({ provider_name: name })),
      allow,
      providers,
      request,
      options,
    );
  }
  throw new Error(`JWT requirement ${JSON.stringify(req)} is not one explain knows`);
}

/**
 * requires_any (AnyVerifierImpl): the first alternative that accepts wins;
 * otherwise the most telling failure (a real error beats "unknown issuer",
 * which beats "missing"; Envoy PRs 10385, 15194), which allow_missing turns
 * into success only when it is "missing", and allow_missing_or_failed always.
 */
async function anyOf(
  alternatives: Json[],
  allow: 'allow_missing' | 'allow_missing_or_failed' | undefined,
  providers: Json,
  request: HttpRequest,
  options: JwtOptions,
): Promise<Verification> {
  const lines: string[] = [];
  let status: Status = 'JwtMissed';
  for (const child of alternatives) {
    const r = await verifyRequirement(child, providers, request, options);
    lines.push(...r.lines);
    if (r.status === 'Ok') return { ...r, lines: [...lines, 'requires_any: this provider accepted the token'] };
    if ((r.status !== 'JwtMissed' && r.status !== 'JwtUnknownIssuer') || status === 'JwtMissed') status = r.status;
  }
  if (allow === 'allow_missing_or_failed')
    return {
      status: 'Ok',
      lines: [...lines, `allow_missing_or_failed: passes without a verified token (${STATUS_TEXT[status]})`],
    };
  if (allow === 'allow_missing' && status === 'JwtMissed')
    return { status: 'Ok', lines: [...lines, 'allow_missing: no token was found, so the request passes'] };
  const verdict =
    allow === 'allow_missing'
      ? `allow_missing admits only a missing token; the answer is the most telling failure: ${STATUS_TEXT[status]}`
      : `requires_any: no provider accepted; the answer is the most telling failure: ${STATUS_TEXT[status]}`;
  return { status, lines: [...lines, verdict] };
}

/** The requirement the request gets: the route's PerRouteConfig, else the first matching rule of the filter. */
function selectRequirement(
  filter: Json,
  levels: Parameters<typeof perFilterConfig>[1],
  req: HttpRequest,
): { requirement?: Json; why: string } {
  const per = perFilterConfig(JWT_FILTER, levels);
  if (per) {
    if (per.config.disabled === true) return { why: `disabled on this ${per.level} (PerRouteConfig disabled)` };
    const name = per.config.requirement_name as string;
    const requirement = ((filter.requirement_map as Json | undefined) ?? {})[name] as Json | undefined;
    if (!requirement)
      throw new Error(
        `jwt_authn requirement_name ${JSON.stringify(name)} is not in requirement_map: the configuration is broken (Envoy answers 403)`,
      );
    return { requirement, why: `requirement ${JSON.stringify(name)} (PerRouteConfig on the ${per.level})` };
  }
  for (const rule of (filter.rules as Json[] | undefined) ?? []) {
    if (!matchRoute(rule.match as Json, req).ok) continue;
    if (rule.requires) return { requirement: rule.requires as Json, why: 'the first matching rule of the filter' };
    if (rule.requirement_name)
      return {
        requirement: ((filter.requirement_map as Json)[rule.requirement_name as string] as Json) ?? undefined,
        why: `rule requirement ${JSON.stringify(rule.requirement_name)}`,
      };
    return { why: 'the first matching rule requires nothing' };
  }
  return { why: 'no PerRouteConfig here and no rule matches: nothing is verified' };
}

function names(req: Json): string[] {
  if (typeof req.provider_name === 'string') return [req.provider_name];
  if (req.provider_and_audiences) return [(req.provider_and_audiences as Json).provider_name as string];
  const group = (req.requires_any ?? req.requires_all) as Json | undefined;
  return group ? ((group.requirements as Json[]) ?? []).flatMap(names) : [];
}

/** What a requires_any lets through besides a valid token, for the step's first line. */
function allowance(req: Json): string {
  const children = ((req.requires_any as Json | undefined)?.requirements as Json[] | undefined) ?? [req];
  if (children.some((c) => c.allow_missing_or_failed !== undefined))
    return ', or no valid token (allow_missing_or_failed)';
  if (children.some((c) => c.allow_missing !== undefined)) return ', or no token at all (allow_missing)';
  return '';
}

export async function evaluateJwt(
  filter: Json,
  levels: Parameters<typeof perFilterConfig>[1],
  req: HttpRequest,
  assumed: Pick<ExplainRequest, 'claims' | 'claimsProvider'>,
  options: JwtOptions,
): Promise<JwtResult> {
  const selected = selectRequirement(filter, levels, req);
  const step: Step = { stage: 'jwt_authn', summary: '', details: [], cite: CITE };
  const none: JwtResult = { step, metadata: {}, removedHeaders: [], addedHeaders: {} };
  if (!selected.requirement) {
    step.summary = `not verifying: ${selected.why}`;
    return none;
  }
  const providers = (filter.providers as Json | undefined) ?? {};
  step.details.push(
    `${selected.why}: ${names(selected.requirement).join(' or ') || 'see the requirement'}${allowance(selected.requirement)}`,
  );
  const { claims, claimsProvider } = assumed;
  if (claims) {
    // --claims stands for a token the first provider (or the one --claims-provider names) accepts.
    const candidates = names(selected.requirement);
    const name = claimsProvider
      ? candidates.find((n) => (providers[n] as Json | undefined)?.payload_in_metadata === claimsProvider)
      : candidates[0];
    if (!name) {
      const here = candidates.map((n) => (providers[n] as Json | undefined)?.payload_in_metadata ?? n);
      throw new Error(
        `--claims-provider ${claimsProvider}: the virtual host has no such provider (its providers: ${here.join(', ')})`,
      );
    }
    const provider = providers[name] as Json | undefined;
    step.summary = `token assumed valid for provider ${name} (--claims): ${JSON.stringify(claims)}`;
    if (!provider) return none;
    step.details.push(...sanitizeClaimHeaders(name!, provider, req));
    const assumed = copyClaims(provider, claims, req, step);
    return {
      ...none,
      metadata: payloadMetadata(provider, claims),
      addedHeaders: assumed,
      ...clearsRoute(provider, assumed),
    };
  }
  const v = await verifyRequirement(selected.requirement, providers, req, options);
  step.details.push(...v.lines);
  if (v.status !== 'Ok') {
    // Filter::onComplete: 403 for audiences, 401 for every other failure, the status text as the body.
    const status = v.status === 'JwtAudienceNotAllowed' ? 403 : 401;
    step.summary = `rejected: ${STATUS_TEXT[v.status]}`;
    return { ...none, reply: { status, body: STATUS_TEXT[v.status], by: JWT_FILTER } };
  }
  if (!v.ok) {
    step.summary = `passed without a verified token: ${v.lines.at(-1) ?? ''}`;
    return none;
  }
  const removed = v.ok.provider.forward === true || !v.ok.header ? [] : [v.ok.header];
  const added = copyClaims(v.ok.provider, v.ok.payload, req, step);
  const copied = Object.keys(added);
  step.summary = `token accepted${removed.length ? `; ${removed[0]} removed before forwarding (forward: false)` : ''}${copied.length ? `; claims copied to ${copied.join(', ')}` : ''}`;
  const result: JwtResult = {
    step,
    metadata: payloadMetadata(v.ok.provider, v.ok.payload),
    removedHeaders: removed,
    addedHeaders: added,
    ...clearsRoute(v.ok.provider, added),
  };
  if (v.unchecked) {
    result.assumption = {
      text: `jwt_authn accepts ${v.unchecked}`,
      otherwise: [
        { status: 401, body: STATUS_TEXT.JwtVerificationFail, by: JWT_FILTER },
        { status: 401, body: STATUS_TEXT.JwksKidAlgMismatch, by: JWT_FILTER },
      ],
    };
  }
  return result;
}

/** `payload_in_metadata`: the verified payload under the filter's namespace, where RBAC's metadata matchers look. */
function payloadMetadata(provider: Json, payload: Record<string, unknown>): Json {
  const key = provider.payload_in_metadata as string | undefined;
  return key ? { [JWT_FILTER]: { [key]: payload } } : {};
}

function claimToHeaders(provider: Json): { header_name: string; claim_name: string }[] {
  return (provider.claim_to_headers as { header_name: string; claim_name: string }[] | undefined) ?? [];
}

/** Extractor::sanitizeHeaders: a provider's claim headers leave the request before its tokens are looked for. */
function sanitizeClaimHeaders(name: string, provider: Json, req: HttpRequest): string[] {
  return claimToHeaders(provider).flatMap((c) =>
    req.headers.delete(c.header_name.toLowerCase())
      ? [`provider ${name}: the client's ${c.header_name.toLowerCase()} removed (claim_to_headers)`]
      : [],
  );
}

/** A claim as addJWTClaimToHeader writes it: strings as they are, whole numbers without decimals, others as %f, booleans as true/false. */
function claimText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number')
    return Number.isInteger(value) && value >= 0 && value < 2 ** 64 ? BigInt(value).toString() : value.toFixed(6);
  return undefined;
}

/** `claim_to_headers` of the accepting provider: each claim the payload has (`a.b` is a path) is added to the request. */
function copyClaims(
  provider: Json,
  payload: Record<string, unknown>,
  req: HttpRequest,
  step: Step,
): Record<string, string> {
  const added: Record<string, string> = {};
  for (const c of claimToHeaders(provider)) {
    let value: unknown = payload;
    for (const key of c.claim_name.split('.'))
      value =
        value && typeof value === 'object' && !Array.isArray(value)
          ? (value as Record<string, unknown>)[key]
          : undefined;
    const text = claimText(value);
    const header = c.header_name.toLowerCase();
    if (text === undefined || text === '') {
      step.details.push(
        `claim ${c.claim_name} ${value === undefined ? 'absent' : 'is not a string, number or boolean'}: no ${header} header`,
      );
      continue;
    }
    // headers_->addCopy: a second claim for the same header adds a second value.
    req.headers.set(header, [...(req.headers.get(header) ?? []), text]);
    added[header] = added[header] === undefined ? text : `${added[header]},${text}`;
    step.details.push(`claim ${c.claim_name} -> ${header}: ${text}`);
  }
  return added;
}

/** `clear_route_cache` takes effect when a claim header was added or the payload goes to metadata (JwtProvider, config.proto). */
function clearsRoute(provider: Json, added: Record<string, string>): { clearRouteCache?: true } {
  return provider.clear_route_cache === true && (Object.keys(added).length > 0 || !!provider.payload_in_metadata)
    ? { clearRouteCache: true }
    : {};
}
