/**
 * envoy.filters.http.ext_authz with sluice-extauth behind it: which
 * AuthConfig the route's ExtAuthzPerRoute names (context_extensions
 * config_ref), and what the sidecar does with the request in its documented
 * order (docs/extauth.md): Basic credentials, the bind DN it builds (with
 * the sidecar's own code, contract/ldap-credentials.ts), service-account
 * bind, base search, group membership. Without `--ldap` the directory's
 * part is an assumption with its other answers; with it, the directory is
 * asked, as the sidecar would ask it.
 */
import { Client, ResultCodeError } from 'ldapts';
import {
  BIND_REJECTED_CODES,
  DEFAULT_MEMBERSHIP_ATTRIBUTE,
  DEFAULT_SEARCH_FILTER,
  USER_ID_HEADER,
  basicChallenge,
} from '../../contract/extauth.js';
import { cleanUsername, parseBasic, searchFilter, userDn, type Credentials } from '../../contract/ldap-credentials.js';
import { normalizeDn } from '../../contract/ldap-dn.js';
import type { Json } from '../translate/output.js';
import { combineConfigs } from './extauth-configs.js';
import { perFilterConfig } from '../envoy/match.js';
import type { ExplainOptions, Outcome, Step } from './model.js';
import { headerValue, type HttpRequest } from '../envoy/request.js';

export const EXTAUTH_FILTER = 'envoy.filters.http.ext_authz';
const SIDECAR = 'sluice-extauth';
const CITE = 'docs/extauth.md § The decision, in order';
const CITE_CONFIGS = 'docs/extauth.md § Combining configs';

export interface ExtauthResult {
  step: Step;
  reply?: Outcome;
  assumption?: { text: string; otherwise: Outcome[] };
  /** What an allowed request carries upstream. */
  addedHeaders: Record<string, string>;
  removedHeaders: string[];
}

const deny = (status: 401 | 403 | 500 | 503, configRef: string): Outcome => ({
  status,
  body: '',
  ...(status === 401 ? { headers: { 'www-authenticate': basicChallenge(configRef) } } : {}),
  by: SIDECAR,
});

interface Ldap {
  address: string;
  template: string;
  groups: string[];
  filter: string;
  attribute: string;
  serviceAccount?: { username: string; password: string };
  disableGroupChecking: boolean;
}

function ldapSettings(config: Json): Ldap {
  const l = config.ldap as Json;
  const sa = l.service_account as Json | undefined;
  return {
    address: l.address as string,
    template: l.user_dn_template as string,
    groups: (l.allowed_groups as string[] | undefined) ?? [],
    filter: (l.search_filter as string | undefined) || DEFAULT_SEARCH_FILTER,
    attribute: (l.membership_attribute_name as string | undefined) || DEFAULT_MEMBERSHIP_ATTRIBUTE,
    ...(sa ? { serviceAccount: { username: sa.username as string, password: sa.password as string } } : {}),
    disableGroupChecking: l.disable_group_checking === true,
  };
}

type LiveDecision =
  { ok: true; userDn: string; why: string } | { ok: false; status: 401 | 403 | 500 | 503; why: string };

/** The sidecar's check against the live directory at `url` (extauth-server/authorizer.ts does the same, pooled). */
async function askDirectory(
  l: Ldap,
  url: string,
  dn: string,
  username: string,
  password: string,
): Promise<LiveDecision> {
  const client = new Client({ url, timeout: 5000, connectTimeout: 2000 });
  const code = (err: unknown) => (err instanceof ResultCodeError ? err.code : undefined);
  const failure = (err: unknown, what: string): LiveDecision =>
    code(err) === undefined
      ? { ok: false, status: 503, why: `${what}: ${url} unreachable: ${(err as Error).message}` }
      : { ok: false, status: 500, why: `${what}: LDAP error ${code(err)}` };
  try {
    try {
      await client.bind(dn, password);
    } catch (err) {
      const c = code(err);
      if (c !== undefined && BIND_REJECTED_CODES.has(c))
        return { ok: false, status: 401, why: `user bind rejected (LDAP result ${c})` };
      return failure(err, 'user bind');
    }
    if (l.disableGroupChecking)
      return { ok: true, userDn: dn, why: 'bind accepted (disableGroupChecking: no group check)' };
    if (l.serviceAccount) {
      try {
        await client.bind(l.serviceAccount.username, l.serviceAccount.password);
      } catch (err) {
        if (code(err) !== undefined)
          return { ok: false, status: 500, why: `service account bind failed (LDAP result ${code(err)})` };
        return failure(err, 'service account bind');
      }
    }
    let entries;
    try {
      ({ searchEntries: entries } = await client.search(dn, {
        scope: 'base',
        filter: searchFilter(l.filter, username),
        attributes: [l.attribute],
        sizeLimit: 1,
      }));
    } catch (err) {
      if (code(err) === 32) return { ok: false, status: 403, why: 'user entry not visible to the bound identity' };
      return failure(err, 'search');
    }
    const entry = entries[0];
    if (!entry) return { ok: false, status: 403, why: `user entry does not match ${l.filter}` };
    const key = Object.keys(entry).find((k) => k.toLowerCase() === l.attribute.toLowerCase());
    const raw = key ? entry[key] : [];
    const values = (Array.isArray(raw) ? raw : [raw]).map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v)));
    const allowed = new Set(l.groups.map(normalizeDn).filter((g): g is string => g !== undefined));
    const member = values.find((v) => allowed.has(normalizeDn(v) ?? ''));
    if (!member)
      return {
        ok: false,
        status: 403,
        why: `not a member of an allowed group (${l.attribute}: ${values.join('; ') || 'none'})`,
      };
    return { ok: true, userDn: entry.dn, why: `bind accepted; member of ${member}` };
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

/** An AuthConfig with other kinds than ldap, or a booleanExpr: each config decided here or left to its service (./extauth-configs.ts). */
function combined(result: ExtauthResult, config: Json, req: HttpRequest): ExtauthResult {
  const c = combineConfigs(config, req);
  const { step } = result;
  step.cite = CITE_CONFIGS;
  if (config.boolean_expr) step.details.push(`booleanExpr ${config.boolean_expr as string}`);
  for (const { name, verdict } of c.asked)
    step.details.push(
      `${name}: ${verdict.kind === 'open' ? 'open' : verdict.kind === 'allow' ? 'allows' : 'denies'}: ${verdict.why}`,
    );
  const skipped = ((config.configs as Json[] | undefined) ?? [])
    .map((x, i) => (x.name as string | undefined) || `config_${i}`)
    .filter((n) => !c.asked.some((a) => a.name === n));
  if (skipped.length) step.details.push(`not asked (short-circuit): ${skipped.join(', ')}`);
  const decider = c.asked.at(-1)?.name;
  step.summary = c.allowed
    ? `allowed${decider ? ` (decided by ${decider})` : ''}`
    : `${c.outcome!.status} from sluice-extauth (decided by ${decider ?? 'no config'})`;
  if (c.open.names.length)
    result.assumption = {
      text: `${c.open.names.join(' and ')} ${c.open.names.length > 1 ? 'allow' : 'allows'} (not contacted)`,
      otherwise: c.open.otherwise,
    };
  if (!c.allowed) return { ...result, reply: c.outcome! };
  Object.assign(result.addedHeaders, c.headers);
  result.removedHeaders.push(...c.removed);
  return result;
}

export async function evaluateExtauth(
  levels: Parameters<typeof perFilterConfig>[1],
  req: HttpRequest,
  authConfigs: Map<string, Json>,
  options: ExplainOptions,
): Promise<ExtauthResult> {
  const step: Step = { stage: 'ext_authz', summary: '', details: [], cite: CITE };
  const result: ExtauthResult = { step, addedHeaders: {}, removedHeaders: [] };
  const per = perFilterConfig(EXTAUTH_FILTER, levels);
  if (per?.config.disabled === true) {
    step.summary = `disabled on this ${per.level} (ExtAuthzPerRoute disabled)`;
    return result;
  }
  const configRef = ((per?.config.check_settings as Json | undefined)?.context_extensions as Json | undefined)
    ?.config_ref as string | undefined;
  const config = configRef ? authConfigs.get(configRef) : undefined;
  if (!config) {
    step.summary = `sluice-extauth is asked with config_ref ${JSON.stringify(configRef ?? '')}, which names no AuthConfig: 500`;
    return { ...result, reply: deny(500, configRef ?? '') };
  }
  step.details.push(`AuthConfig ${configRef} (context_extensions config_ref on the ${per!.level})`);
  const configs = (config.configs as Json[] | undefined) ?? [];
  if (config.boolean_expr || configs.some((c) => !c.ldap)) return combined(result, config, req);
  const ldaps = configs.map(ldapSettings);
  const authorization = headerValue(req, 'authorization');
  const creds: Credentials | undefined = parseBasic(authorization);
  if (!creds) {
    step.summary = `401: ${authorization ? 'the Authorization header is not valid Basic credentials' : 'no Authorization header (Basic credentials)'}; no LDAP operation`;
    return { ...result, reply: deny(401, configRef!) };
  }
  const unknowns: string[] = [];
  let firstDn: string | undefined;
  for (const [i, l] of ldaps.entries()) {
    const label = ldaps.length > 1 ? `ldap config ${i + 1}: ` : '';
    const username = cleanUsername(creds.username);
    if (!username) {
      step.summary = `401: username ${JSON.stringify(creds.username)} is empty after cleaning; no bind`;
      return { ...result, reply: deny(401, configRef!) };
    }
    const dn = userDn(l.template, username);
    step.details.push(`${label}directory ${l.address}`);
    if (username !== creds.username)
      step.details.push(`${label}username ${JSON.stringify(creds.username)} cleaned to ${JSON.stringify(username)}`);
    step.details.push(`${label}1. bind as ${JSON.stringify(dn)} with the given password (rejected: 401)`);
    if (l.disableGroupChecking) step.details.push(`${label}2. no search and no group check (disableGroupChecking)`);
    else ldapSearchSteps(step, label, l, dn, username);
    if (!options.ldap) {
      unknowns.push(
        `${dn} binds with that password at ${l.address}${l.disableGroupChecking ? '' : ' and is in an allowed group'}`,
      );
      firstDn ??= dn;
      continue;
    }
    const url = options.ldapAddress ?? l.address;
    const live = await askDirectory(l, url, dn, username, creds.password);
    step.details.push(
      `${label}asked the directory${url === l.address ? ' (--ldap)' : ` at ${url} (--ldap-address)`}: ${live.why}`,
    );
    if (!live.ok) {
      step.summary = `${live.status} from sluice-extauth: ${live.why}`;
      return { ...result, reply: deny(live.status, configRef!) };
    }
    firstDn ??= live.userDn;
  }
  step.summary = options.ldap
    ? `allowed as ${firstDn}`
    : `allowed if the directory agrees (not asked: pass --ldap to ask it)`;
  result.addedHeaders[USER_ID_HEADER] = firstDn!;
  result.removedHeaders.push('authorization');
  if (unknowns.length > 0) {
    result.assumption = {
      text: `sluice-extauth allows: ${unknowns.join('; ')}`,
      otherwise: [deny(401, configRef!), deny(403, configRef!), deny(500, configRef!), deny(503, configRef!)],
    };
  }
  return result;
}

/** The steps after the user's bind when groups are checked. */
function ldapSearchSteps(step: Step, label: string, l: Ldap, dn: string, username: string): void {
  if (l.serviceAccount)
    step.details.push(
      `${label}2. bind as the service account ${JSON.stringify(l.serviceAccount.username)} (fails: 500)`,
    );
  step.details.push(
    `${label}${l.serviceAccount ? 3 : 2}. search base ${JSON.stringify(dn)} filter ${searchFilter(l.filter, username)} for ${l.attribute} (no entry: 403)`,
  );
  step.details.push(
    `${label}${l.serviceAccount ? 4 : 3}. allowed groups: ${l.groups.map((g) => JSON.stringify(g)).join(', ') || '(none: every user is denied)'} (none held: 403)`,
  );
}
