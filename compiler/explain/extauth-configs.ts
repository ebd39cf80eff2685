/**
 * An AuthConfig's configs as sluice-extauth combines them (docs/extauth.md
 * § Combining configs), for `sluice explain`: each config decided here when
 * the request alone decides it (apiKeyAuth, basicAuth with the sidecar's own
 * hashing, jwt), and left open when a service decides (passThroughAuth,
 * opaServerAuth, ldap: none is contacted). The configs are combined in order
 * or by booleanExpr with short-circuit; when an open config matters, the
 * answer assumes it allows and lists what the other answers would be.
 */
import { evaluateBoolExpr, parseBoolExpr, type BoolExpr } from '../../contract/boolean-expr.js';
import { hashPassword, parseBasic, type HashAlgorithm } from '../../contract/basic-credentials.js';
import { API_KEY_CHALLENGE, DEFAULT_API_KEY_HEADER, USER_ID_HEADER, realmChallenge } from '../../contract/extauth.js';
import { headerValue, type HttpRequest } from '../envoy/request.js';
import type { Json } from '../translate/output.js';
import type { ConfigVerdict, Outcome } from './model.js';
import { oidcVerdict } from './extauth-oidc.js';

const SIDECAR = 'sluice-extauth';

export type { ConfigVerdict };

const denial = (status: number, headers?: Record<string, string>): Outcome => ({
  status,
  body: '',
  ...(headers ? { headers } : {}),
  by: SIDECAR,
});

function apiKey(c: Json, req: HttpRequest): ConfigVerdict {
  const headerName = ((c.header_name as string | undefined) || DEFAULT_API_KEY_HEADER).toLowerCase();
  const challenge = denial(401, { 'www-authenticate': API_KEY_CHALLENGE });
  const presented = headerValue(req, headerName);
  if (!presented) return { kind: 'deny', why: `no ${headerName} header: 401`, outcome: challenge };
  const keys = (c.keys as { key: string; user: string; metadata?: Record<string, string> }[] | undefined) ?? [];
  const key = keys.find((k) => k.key === presented);
  // The key is never repeated: the Secret it belongs to is named instead.
  if (!key)
    return {
      kind: 'deny',
      why: `the ${headerName} header holds none of the ${keys.length} keys: 401`,
      outcome: challenge,
    };
  const wanted = Object.entries(
    (c.headers_from_metadata_entry as Record<string, { name: string; required?: boolean }> | undefined) ?? {},
  );
  const absent = wanted.find(([, e]) => e.required && !(e.name in (key.metadata ?? {})));
  if (absent)
    return {
      kind: 'deny',
      why: `the key of Secret ${key.user} has no ${absent[1].name} entry, which is required: 401`,
      outcome: challenge,
    };
  const headers = Object.fromEntries([
    [USER_ID_HEADER, key.user],
    ...wanted.filter(([, e]) => e.name in (key.metadata ?? {})).map(([h, e]) => [h, key.metadata![e.name]!]),
  ]);
  return { kind: 'allow', why: `the key of Secret ${key.user}`, headers, removed: [headerName] };
}

function basicAuth(c: Json, req: HttpRequest): ConfigVerdict {
  const challenge = denial(401, { 'www-authenticate': realmChallenge((c.realm as string | undefined) ?? '') });
  const header = headerValue(req, 'authorization') ?? headerValue(req, 'proxy-authorization');
  const creds = parseBasic(header);
  if (!creds) return { kind: 'deny', why: `${header ? 'malformed' : 'no'} Basic credentials: 401`, outcome: challenge };
  const user = (c.users as Record<string, { salt: string; hashed_password: string }> | undefined)?.[creds.username];
  const algorithm: HashAlgorithm = c.algorithm === 'SHA1' ? 'SHA1' : 'APR1';
  const hashed = user && hashPassword(algorithm, creds.password, user.salt);
  if (!user || hashed !== (algorithm === 'SHA1' ? user.hashed_password.toLowerCase() : user.hashed_password)) {
    return {
      kind: 'deny',
      why: `${user ? 'wrong password for' : 'no user'} ${JSON.stringify(creds.username)}: 401`,
      outcome: challenge,
    };
  }
  return {
    kind: 'allow',
    why: `user ${JSON.stringify(creds.username)}, password matches its ${algorithm} hash`,
    headers: { [USER_ID_HEADER]: creds.username },
    removed: ['authorization', 'proxy-authorization'],
  };
}

/** What one config answers this request, or that a service answers. */
export function configVerdict(c: Json, req: HttpRequest, failOnRedirect = false): ConfigVerdict {
  const oidc = (c.oauth2 as Json | undefined)?.oidc_authorization_code as Json | undefined;
  if (oidc) return oidcVerdict(oidc, req, failOnRedirect);
  if (c.api_key_auth) return apiKey(c.api_key_auth as Json, req);
  if (c.basic_auth) return basicAuth(c.basic_auth as Json, req);
  if (c.jwt) {
    // jwt_authn ran before ext_authz: a bearer token that reached here is one it verified (the JWT step says whether).
    return /^bearer /i.test(headerValue(req, 'authorization') ?? '')
      ? { kind: 'allow', why: 'the bearer token jwt_authn verified', headers: {}, removed: [] }
      : { kind: 'deny', why: 'no token verified by jwt_authn: 401', outcome: denial(401) };
  }
  if (c.pass_through_auth) {
    const p = c.pass_through_auth as Json;
    const target = p.grpc ? (p.grpc as Json).address : (p.http as Json).url;
    const failure = p.failure_mode_allow ? [] : [denial(503)];
    return {
      kind: 'open',
      why: `the pass-through service ${target} decides (not contacted)${p.failure_mode_allow ? '; if it fails, allowed (failureModeAllow)' : '; if it fails, 503'}`,
      denials: [denial(403), denial(401), ...failure],
    };
  }
  if (c.opa_server_auth) {
    const o = c.opa_server_auth as Json;
    return {
      kind: 'open',
      why: `OPA at ${o.server_url} decides data.${o.package}${o.rule_name ? `.${(o.rule_name as string).replace(/\//g, '.')}` : ''} (not contacted)`,
      denials: [denial(403), denial(503)],
    };
  }
  const token = (c.oauth2 as Json | undefined)?.access_token_validation as Json | undefined;
  if (token) {
    if (!/^bearer\s+\S+\s*$/i.test(headerValue(req, 'authorization') ?? ''))
      return { kind: 'deny', why: 'no bearer token: 403', outcome: denial(403) };
    const by = token.introspection
      ? `the introspection endpoint ${(token.introspection as Json).url}`
      : `the JWT's signature, issuer and audience against ${((token.jwt as Json).remote_jwks as Json | undefined)?.url ?? 'the inline JWKS'}`;
    return {
      kind: 'open',
      why: `${by} decides whether the bearer token is valid (not contacted); a missing scope is 403, the provider failing 503`,
      denials: [denial(403), denial(503)],
    };
  }
  if (c.ldap)
    return {
      kind: 'open',
      why: `the directory ${(c.ldap as Json).address} decides (not asked when other kinds of config are combined with it)`,
      denials: [denial(401), denial(403), denial(500), denial(503)],
    };
  return { kind: 'open', why: 'a kind of config explain does not read', denials: [denial(500)] };
}

export interface Combined {
  /** Each config asked, in the order asked, with its answer. */
  asked: { name: string; verdict: ConfigVerdict }[];
  /** The answer when every open config asked allows. */
  allowed: boolean;
  outcome?: Outcome;
  headers: Record<string, string>;
  removed: string[];
  /** Open configs whose answer changes the outcome, and the outcomes then. */
  open: { names: string[]; otherwise: Outcome[] };
}

/** One evaluation with each open config taken as `assume(name)`: the order asked, the decision, headers merged (the first config's value stays). */
function run(expr: BoolExpr, verdicts: Map<string, ConfigVerdict>, assume: (name: string) => boolean) {
  const asked: string[] = [];
  let lastDenial: Outcome | undefined;
  let deniedBy: string | undefined;
  let failed: Outcome | undefined;
  const allowed = evaluateBoolExpr(expr, (name) => {
    if (failed) return false;
    asked.push(name);
    const v = verdicts.get(name)!;
    if (v.kind === 'deny') {
      lastDenial = v.outcome;
      deniedBy = name;
      if (typeof v.outcome.status === 'number' && v.outcome.status >= 500) failed = v.outcome;
      return false;
    }
    if (v.kind === 'open' && !assume(name)) {
      lastDenial = v.denials[0];
      deniedBy = name;
      return false;
    }
    return true;
  }) as boolean;
  if (failed) return { asked, allowed: false, outcome: failed, deniedBy };
  return {
    asked,
    allowed,
    outcome: allowed ? undefined : (lastDenial ?? denial(403)),
    deniedBy: allowed ? undefined : deniedBy,
  };
}

/** The configs combined as the sidecar combines them: booleanExpr, or all in order (the first denial answers). */
export function combineConfigs(authConfig: Json, req: HttpRequest): Combined {
  const configs = ((authConfig.configs as Json[] | undefined) ?? []).map((c, i) => ({
    name: (c.name as string | undefined) || `config_${i}`,
    verdict: configVerdict(c, req, authConfig.fail_on_redirect === true),
  }));
  const verdicts = new Map(configs.map((c) => [c.name, c.verdict]));
  const exprText = authConfig.boolean_expr as string | undefined;
  const expr: BoolExpr = exprText
    ? parseBoolExpr(exprText)
    : { kind: 'and', operands: configs.map((c) => ({ kind: 'name', name: c.name })) };
  const main = run(expr, verdicts, () => true);
  const openAsked = main.asked.filter((n) => verdicts.get(n)!.kind === 'open');
  // Every other answer of the open configs asked (a few at most), for what the client may get instead.
  const otherwise = new Map<string, Outcome>();
  const changing = new Set<string>();
  const add = (o: Outcome) => otherwise.set(`${o.status}`, o);
  const combos = Math.min(1 << openAsked.length, 64);
  for (let mask = 1; mask < combos; mask++) {
    const r = run(expr, verdicts, (n) => !openAsked.includes(n) || !(mask & (1 << openAsked.indexOf(n))));
    if (r.allowed === main.allowed && r.outcome?.status === main.outcome?.status) continue;
    openAsked.forEach((n, i) => mask & (1 << i) && changing.add(n));
    const by = r.deniedBy && verdicts.get(r.deniedBy);
    // A service that decides the denial may answer any of its denials.
    if (by && by.kind === 'open') by.denials.forEach(add);
    else add(r.outcome ?? { status: 'upstream', by: 'upstream' });
  }
  // A service that fails (5xx) ends the check whatever the expression.
  for (const n of openAsked) {
    const v = verdicts.get(n) as Extract<ConfigVerdict, { kind: 'open' }>;
    const failures = v.denials.filter((o) => typeof o.status === 'number' && o.status >= 500);
    if (failures.length) changing.add(n);
    failures.forEach(add);
  }
  otherwise.delete(`${main.outcome?.status ?? 'upstream'}`);
  const headers: Record<string, string> = {};
  const removed: string[] = [];
  if (main.allowed) {
    for (const name of main.asked) {
      const v = verdicts.get(name)!;
      if (v.kind !== 'allow') continue;
      for (const [k, value] of Object.entries(v.headers)) if (!(k in headers)) headers[k] = value;
      removed.push(...v.removed);
    }
  }
  return {
    asked: main.asked.map((name) => ({ name, verdict: verdicts.get(name)! })),
    allowed: main.allowed,
    ...(main.outcome ? { outcome: main.outcome } : {}),
    headers,
    removed,
    open: { names: [...changing], otherwise: [...otherwise.values()] },
  };
}
