/**
 * `options.rbac` -> envoy.filters.http.rbac.
 *
 * The filter's own config has no rules, which Envoy treats as "no enforcement"
 * (rbac.proto: "If absent, no enforcing RBAC policy will be applied"); each
 * virtual host with policies carries an RBACPerRoute with an ALLOW engine, and
 * every other virtual host an empty RBACPerRoute, which disables the filter
 * there ("If absent, the global RBAC policy will be disabled for this route").
 */
import type { RbacPolicyIR } from '../../ir/model.js';
import type { HttpFilterConcern } from '../concern.js';
import type { Json } from '../output.js';
import { JWT_FILTER_NAME } from './jwt.js';

export const RBAC_FILTER_NAME = 'envoy.filters.http.rbac';

const TYPE = 'type.googleapis.com/envoy.extensions.filters.http.rbac.v3.';
// Made once: a type URL built per virtual host is a string of its own in each.
const RBAC_TYPE = `${TYPE}RBAC`;
const RBAC_PER_ROUTE_TYPE = `${TYPE}RBACPerRoute`;

type RbacPrincipal = RbacPolicyIR['principals'][number];

/** The AND of `members`: one member stands alone, several go in `and_rules` (permissions) or `and_ids` (principals). */
function all(kind: 'permission' | 'principal', members: Json[]): Json {
  if (members.length === 1) return members[0]!;
  return kind === 'permission' ? { and_rules: { rules: members } } : { and_ids: { ids: members } };
}

function permission(policy: RbacPolicyIR): Json {
  const parts: Json[] = [];
  // HTTP methods are case-sensitive on the wire; clients send them upper-case.
  const methods = [...new Set(policy.methods.map((m) => m.toUpperCase()))];
  if (methods.length > 0) {
    const matchers = methods.map((m) => ({ header: { name: ':method', string_match: { exact: m } } }));
    parts.push(matchers.length === 1 ? matchers[0]! : { or_rules: { rules: matchers } });
  }
  // url_path is the path without the query string; an empty prefix would fail validation and means any path.
  if (policy.pathPrefix) parts.push({ url_path: { path: { prefix: policy.pathPrefix } } });
  return parts.length === 0 ? { any: true } : all('permission', parts);
}

/** Gloo's ClaimMatcher as Envoy's ValueMatcher for one claim. */
function claimValue(matcher: RbacPrincipal['matcher'], value: string): Json {
  switch (matcher) {
    case 'BOOLEAN':
      return { bool_match: value === 'true' };
    case 'LIST_CONTAINS':
      return { list_match: { one_of: { string_match: { exact: value } } } };
    case 'REGEX_MATCH':
      // RE2, matching the whole claim (Envoy's safe_regex); checked at resolve.
      return { string_match: { safe_regex: { regex: value } } };
    default:
      return { string_match: { exact: value } };
  }
}

/** Every claim of the principal in the payload one provider wrote (under its name). */
function claimsOf(p: RbacPrincipal, provider: string, delimiter: string | undefined): Json {
  const ids = Object.entries(p.claims).map(([claim, value]) => ({
    metadata: {
      filter: JWT_FILTER_NAME,
      // A nested claim is a path into the payload: org.team with "." reads payload.org.team.
      path: [{ key: provider }, ...(delimiter ? claim.split(delimiter) : [claim]).map((key) => ({ key }))],
      value: claimValue(p.matcher, value),
    },
  }));
  return all('principal', ids);
}

function principal(p: RbacPrincipal, delimiter: string | undefined): Json {
  // No claims: every claim of the (empty) map is carried by any verified token.
  if (Object.keys(p.claims).length === 0) return { any: true };
  // All claims from one payload: the named provider's, or any provider's (one at most is there).
  const alternatives = p.providers.map((provider) => claimsOf(p, provider, delimiter));
  return alternatives.length === 1 ? alternatives[0]! : { or_ids: { ids: alternatives } };
}

function policies(list: RbacPolicyIR[]): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const policy of [...list].sort((a, b) => a.name.localeCompare(b.name))) {
    out[policy.name] = {
      permissions: [permission(policy)],
      principals: policy.principals.map((p) => principal(p, policy.nestedClaimDelimiter)),
    };
  }
  return out;
}

/** RBACPerRoute of a virtual host or route: an ALLOW engine with the policies; none: the filter is off there. */
function perRoute(list: RbacPolicyIR[]): Json {
  if (list.length === 0) return { '@type': RBAC_PER_ROUTE_TYPE };
  return { '@type': RBAC_PER_ROUTE_TYPE, rbac: { rules: { action: 'ALLOW', policies: policies(list) } } };
}

export const rbacConcern: HttpFilterConcern = {
  filterName: RBAC_FILTER_NAME,
  usedBy: (vh) => (vh.rbac?.policies.length ?? 0) > 0 || vh.routes.some((r) => r.options?.rbacPolicies),
  perVirtualHost: (vh) => perRoute(vh.rbac?.policies ?? []),
  // Gloo's route option rbac.disable: an RBACPerRoute without rbac turns the filter off for the route; its own policies replace the host's.
  perRoute: (route) =>
    route.options?.rbacDisabled
      ? { '@type': RBAC_PER_ROUTE_TYPE }
      : route.options?.rbacPolicies
        ? perRoute(route.options.rbacPolicies)
        : undefined,
  httpFilter: () => ({ name: RBAC_FILTER_NAME, typed_config: { '@type': RBAC_TYPE } }),
  // No rules: no policy is enforced.
  idleFilter: () => ({ name: RBAC_FILTER_NAME, typed_config: { '@type': RBAC_TYPE } }),
};
