/**
 * Gloo's global rate limit options on a virtual host or route, resolved to
 * the descriptors Envoy sends (RateLimitsIR): `ratelimit` /
 * `ratelimitEarly` / `ratelimitRegular` actions (domain custom, whose rules
 * are the Settings'), `ratelimitBasic` (domain ingress: per user id the ext
 * auth server set, else per client address) and `rateLimitConfigs` and their
 * staged forms (domain solo.io: each RateLimitConfig's own rules, kept apart
 * by a leading generic_key of `<namespace>.<name>`).
 */
import { SET_DESCRIPTOR_MARKER } from '../../contract/ratelimit.js';
import { USER_ID_HEADER } from '../../contract/extauth.js';
import { fieldError, type Diagnostic, type FieldPath } from '../diagnostics.js';
import type {
  DescriptorIR,
  RateLimitActionIR,
  RateLimitDomainName,
  RateLimitIR,
  RateLimitOption,
  RateLimitRuleIR,
  RateLimitsIR,
  SetDescriptorIR,
} from '../ir/ratelimit.js';
import type { IngressRateLimitSpec, RateLimitConfigRefsSpec } from '../kinds/rate-limit.js';
import type {
  ActionSpec,
  DescriptorSpec,
  RateLimitActionsSpec,
  RateLimitSpec,
  SetDescriptorSpec,
} from '../kinds/rate-limit-api.js';
import type { RateLimitConfigSpec } from '../kinds/rate-limit-config.js';
import type { SettingsSpec } from '../kinds/settings.js';
import type { Resource } from '../validate/validate.js';
import type { Lookups } from './lookups.js';
import { re2Problem } from './matchers.js';

/** The options of a virtual host or route this module reads. */
export interface RateLimitOptionsSpec {
  ratelimit?: { rateLimits?: RateLimitActionsSpec[]; includeVhRateLimits?: boolean };
  ratelimitEarly?: { rateLimits?: RateLimitActionsSpec[]; includeVhRateLimits?: boolean };
  ratelimitRegular?: { rateLimits?: RateLimitActionsSpec[]; includeVhRateLimits?: boolean };
  ratelimitBasic?: IngressRateLimitSpec;
  rateLimitConfigs?: RateLimitConfigRefsSpec;
  rateLimitEarlyConfigs?: RateLimitConfigRefsSpec;
  rateLimitRegularConfigs?: RateLimitConfigRefsSpec;
}

/** ratelimitBasic's descriptor entries, as Gloo's rate limit server names them. */
export const BASIC = {
  matchKey: 'header_match',
  authenticated: 'is-authenticated',
  anonymous: 'not-authenticated',
  userKey: 'userid',
  addressKey: 'remote_address',
} as const;

export interface RateLimitContext {
  lookups: Lookups;
  diagnostics: Diagnostic[];
  /** The resource the options are written in. */
  owner: Resource;
  /** ratelimitBasic's counter name: the virtual host's, or `<virtual host>/<route name>`; undefined: a route without a name. */
  basicName: string | undefined;
}

/** Gloo's Settings ratelimitServer.rateLimitBeforeAuth, read from the one Settings resource (several: resolve reports it). */
export function rateLimitBeforeAuth(lookups: Lookups): boolean {
  const all = lookups.all('Settings');
  return all.length === 1 && (all[0]!.spec as SettingsSpec).ratelimitServer?.rateLimitBeforeAuth === true;
}

export const configName = (r: { namespace: string; name: string }) => `${r.namespace}.${r.name}`;

/** The global limits of a virtual host's or route's options; `ok: false` after reporting a problem. */
export function resolveRateLimits(
  spec: RateLimitOptionsSpec,
  path: FieldPath,
  ctx: RateLimitContext,
): { ok: boolean; limits?: RateLimitsIR } {
  const before = ctx.diagnostics.length;
  const beforeAuth = rateLimitBeforeAuth(ctx.lookups);
  const entries: RateLimitIR[] = [];
  const includeVh: RateLimitOption[] = [];
  const staged = [
    ['ratelimit', beforeAuth],
    ['ratelimitEarly', true],
    ['ratelimitRegular', false],
  ] as const;
  for (const [option, early] of staged) {
    const s = spec[option];
    if (!s) continue;
    if (s.includeVhRateLimits) includeVh.push(option);
    (s.rateLimits ?? []).forEach((a, i) =>
      entries.push(...actionsOf(a, [...path, option, 'rateLimits', i], option, 'custom', early, [], ctx)),
    );
  }
  const configs = [
    ['rateLimitConfigs', beforeAuth],
    ['rateLimitEarlyConfigs', true],
    ['rateLimitRegularConfigs', false],
  ] as const;
  for (const [option, early] of configs) {
    const refs = spec[option]?.refs ?? [];
    refs.forEach((raw, i) => {
      const ref = { name: raw.name, namespace: raw.namespace ?? ctx.owner.namespace };
      const config = ctx.lookups.resource('RateLimitConfig', ref);
      if (!config) {
        ctx.diagnostics.push(
          fieldError(
            'resolve',
            ctx.owner.origin,
            [...path, option, 'refs', i],
            `RateLimitConfig ${ref.namespace}/${ref.name} is not in the inputs`,
            'define the RateLimitConfig (ratelimit.solo.io/v1alpha1) or fix the reference',
          ),
        );
        return;
      }
      const lead: RateLimitActionIR[] = [{ kind: 'genericKey', value: configName(ref) }];
      const raw_ = (config.spec as RateLimitConfigSpec).raw;
      raw_.rateLimits.forEach((a, j) =>
        entries.push(
          ...actionsOf(a, ['spec', 'raw', 'rateLimits', j], option, 'solo.io', early, lead, { ...ctx, owner: config }),
        ),
      );
    });
  }
  let basic: RateLimitsIR['basic'];
  if (spec.ratelimitBasic) {
    const at = [...path, 'ratelimitBasic'];
    if (ctx.basicName === undefined)
      ctx.diagnostics.push(
        fieldError(
          'resolve',
          ctx.owner.origin,
          at,
          "a route's ratelimitBasic needs the route's name: its counters are kept under it",
          'give the route a name (unique in the virtual service), as Gloo requires',
        ),
      );
    else {
      const b = basicLimits(ctx.basicName, spec.ratelimitBasic, beforeAuth);
      basic = b.basic;
      entries.push(...b.entries);
    }
  }
  if (ctx.diagnostics.length > before) return { ok: false };
  if (entries.length === 0 && includeVh.length === 0) return { ok: true };
  return {
    ok: true,
    limits: { entries, ...(includeVh.length ? { includeVh } : {}), ...(basic ? { basic } : {}) },
  };
}

/** One RateLimitActions: a descriptor of its actions, and one of its setActions led by Gloo's set marker. */
function actionsOf(
  spec: RateLimitActionsSpec,
  path: FieldPath,
  option: RateLimitOption,
  domain: RateLimitDomainName,
  early: boolean,
  lead: RateLimitActionIR[],
  ctx: RateLimitContext,
): RateLimitIR[] {
  const out: RateLimitIR[] = [];
  const key = spec.limit?.dynamicMetadata.metadataKey;
  const override = key ? { limitOverride: { metadataKey: key.key, path: key.path.map((p) => p.key) } } : {};
  if (!spec.actions?.length && !spec.setActions?.length) {
    ctx.diagnostics.push(
      fieldError(
        'resolve',
        ctx.owner.origin,
        path,
        'has neither actions nor setActions, so Envoy would send no descriptor for it',
        'add actions (matched against descriptors) or setActions (matched against setDescriptors)',
      ),
    );
    return out;
  }
  if (spec.actions?.length)
    out.push({
      option,
      domain,
      early,
      actions: [...lead, ...spec.actions.map((a, i) => action(a, [...path, 'actions', i], false, ctx))],
      ...override,
    });
  if (spec.setActions?.length)
    out.push({
      option,
      domain,
      early,
      actions: [
        { kind: 'genericKey', value: SET_DESCRIPTOR_MARKER.value },
        ...lead,
        ...spec.setActions.map((a, i) => action(a, [...path, 'setActions', i], true, ctx)),
      ],
      ...override,
    });
  return out;
}

/** Gloo's Action; in a set, a missing request header is skipped (Gloo sets skipIfAbsent), not the whole descriptor. */
function action(a: ActionSpec, path: FieldPath, inSet: boolean, ctx: RateLimitContext): RateLimitActionIR {
  if (a.sourceCluster) return { kind: 'sourceCluster' };
  if (a.destinationCluster) return { kind: 'destinationCluster' };
  if (a.remoteAddress) return { kind: 'remoteAddress' };
  if (a.genericKey) return { kind: 'genericKey', value: a.genericKey.descriptorValue };
  if (a.requestHeaders)
    return {
      kind: 'requestHeaders',
      header: a.requestHeaders.headerName.toLowerCase(),
      key: a.requestHeaders.descriptorKey,
      skipIfAbsent: inSet,
    };
  if (a.headerValueMatch) {
    const m = a.headerValueMatch;
    return {
      kind: 'headerValueMatch',
      value: m.descriptorValue,
      expectMatch: m.expectMatch ?? true,
      headers: m.headers.map((h, i) => {
        const at = [...path, 'headerValueMatch', 'headers', i];
        const match =
          h.exactMatch !== undefined
            ? { kind: 'exact' as const, value: h.exactMatch }
            : h.regexMatch !== undefined
              ? { kind: 'regex' as const, value: h.regexMatch }
              : h.prefixMatch !== undefined
                ? { kind: 'prefix' as const, value: h.prefixMatch }
                : h.suffixMatch !== undefined
                  ? { kind: 'suffix' as const, value: h.suffixMatch }
                  : h.rangeMatch
                    ? { kind: 'range' as const, start: h.rangeMatch.start, end: h.rangeMatch.end }
                    : { kind: 'present' as const, present: h.presentMatch! };
        const problem = match.kind === 'regex' ? re2Problem(match.value) : undefined;
        if (problem)
          ctx.diagnostics.push(
            fieldError(
              'resolve',
              ctx.owner.origin,
              [...at, 'regexMatch'],
              `RE2 refuses the pattern: ${problem}`,
              'write an RE2 regular expression (no lookaround or backreferences)',
            ),
          );
        if (match.kind === 'range' && match.start >= match.end)
          ctx.diagnostics.push(
            fieldError(
              'resolve',
              ctx.owner.origin,
              [...at, 'rangeMatch'],
              `the range [${match.start}, ${match.end}) is empty`,
              'write start below end (start is included, end is not)',
            ),
          );
        return { name: h.name.toLowerCase(), match, invert: h.invertMatch ?? false };
      }),
    };
  }
  const m = a.metadata!;
  return {
    kind: 'metadata',
    key: m.descriptorKey,
    metadataKey: m.metadataKey.key,
    path: m.metadataKey.path.map((p) => p.key),
    ...(m.defaultValue ? { defaultValue: m.defaultValue } : {}),
    source: m.source ?? 'DYNAMIC',
  };
}

const rule = (r: RateLimitSpec): RateLimitRuleIR => ({ unit: r.unit, requestsPerUnit: r.requestsPerUnit });

/**
 * ratelimitBasic as Gloo's rate limit server has it: under (generic_key,
 * name), requests with x-user-id (which only the ext auth server can set:
 * Sluice strips a client's copy) counted per user, the others per address.
 */
function basicLimits(
  name: string,
  spec: IngressRateLimitSpec,
  early: boolean,
): { basic: NonNullable<RateLimitsIR['basic']>; entries: RateLimitIR[] } {
  const entry = (authenticated: boolean): RateLimitIR => ({
    option: 'ratelimitBasic',
    domain: 'ingress',
    early,
    actions: [
      { kind: 'genericKey', value: name },
      {
        kind: 'headerValueMatch',
        value: authenticated ? BASIC.authenticated : BASIC.anonymous,
        expectMatch: authenticated,
        headers: [{ name: USER_ID_HEADER, match: { kind: 'present', present: true }, invert: false }],
      },
      authenticated
        ? { kind: 'requestHeaders', header: USER_ID_HEADER, key: BASIC.userKey, skipIfAbsent: false }
        : { kind: 'remoteAddress' },
    ],
  });
  return {
    basic: {
      name,
      ...(spec.authorizedLimits ? { authorized: rule(spec.authorizedLimits) } : {}),
      ...(spec.anonymousLimits ? { anonymous: rule(spec.anonymousLimits) } : {}),
    },
    entries: [...(spec.authorizedLimits ? [entry(true)] : []), ...(spec.anonymousLimits ? [entry(false)] : [])],
  };
}

/** ratelimitBasic's rule tree of one counter name. */
export function basicRule(basic: NonNullable<RateLimitsIR['basic']>): DescriptorIR {
  return {
    key: 'generic_key',
    value: basic.name,
    descriptors: [
      ...(basic.authorized
        ? [
            {
              key: BASIC.matchKey,
              value: BASIC.authenticated,
              descriptors: [{ key: BASIC.userKey, rateLimit: basic.authorized }],
            },
          ]
        : []),
      ...(basic.anonymous
        ? [
            {
              key: BASIC.matchKey,
              value: BASIC.anonymous,
              descriptors: [{ key: BASIC.addressKey, rateLimit: basic.anonymous }],
            },
          ]
        : []),
    ],
  };
}

/** Gloo's Descriptor tree as the IR's (an empty value is any value). */
export function descriptorRule(d: DescriptorSpec): DescriptorIR {
  return {
    key: d.key,
    ...(d.value ? { value: d.value } : {}),
    ...(d.rateLimit ? { rateLimit: rule(d.rateLimit) } : {}),
    ...(d.descriptors?.length ? { descriptors: d.descriptors.map(descriptorRule) } : {}),
    ...(d.weight ? { weight: d.weight } : {}),
    ...(d.alwaysApply ? { alwaysApply: true } : {}),
  };
}

/** Gloo's SetDescriptor, with `extra` entries every request of it carries (a RateLimitConfig's name). */
export function setRule(d: SetDescriptorSpec, extra: { key: string; value: string }[] = []): SetDescriptorIR {
  return {
    simpleDescriptors: [
      ...extra,
      ...(d.simpleDescriptors ?? []).map((s) => ({ key: s.key, ...(s.value ? { value: s.value } : {}) })),
    ],
    rateLimit: rule(d.rateLimit),
    ...(d.alwaysApply ? { alwaysApply: true } : {}),
  };
}
