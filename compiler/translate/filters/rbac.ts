/**
 * `options.rbac` -> envoy.filters.http.rbac.
 *
 * The filter's own config has no rules, which Envoy treats as "no enforcement"
 * (rbac.proto: "If absent, no enforcing RBAC policy will be applied"); each
 * virtual host with policies carries an RBACPerRoute with an ALLOW engine, and
 * every other virtual host an empty RBACPerRoute, which disables the filter
 * there ("If absent, the global RBAC policy will be disabled for this route").
 */
import { fieldError, type Diagnostic, type FieldPath } from '../../diagnostics.js';
import type { RbacPolicyIR, VirtualHostIR, Model } from '../../resolve/model.js';
import { emptyResult, type ConcernResult, type HttpFilterConcern } from '../concern.js';
import type { Json } from '../output.js';
import { JWT_FILTER_NAME, JWT_PAYLOAD_METADATA_KEY } from './jwt.js';

export const RBAC_FILTER_NAME = 'envoy.filters.http.rbac';

const TYPE = 'type.googleapis.com/envoy.extensions.filters.http.rbac.v3.';

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

function principal(policy: RbacPolicyIR, index: number, diagnostics: Diagnostic[]): Json {
  const claims = Object.entries(policy.principals[index]!.claims);
  const at = (claim?: string): FieldPath => [...policy.path, 'principals', index, 'jwtPrincipal', 'claims', ...(claim === undefined ? [] : [claim])];
  // No claims: every claim of the (empty) map is carried by any verified token.
  if (claims.length === 0) return { any: true };
  const ids: Json[] = [];
  for (const [claim, value] of claims) {
    if (claim === '') {
      diagnostics.push(fieldError('translate', policy.origin, at(), 'a claim name is empty', 'name the JWT claim to match, e.g. sub'));
      continue;
    }
    if (typeof value !== 'string') {
      diagnostics.push(
        fieldError('translate', policy.origin, at(claim), `claim value must be a string, got ${value === null ? 'null' : typeof value}`, `quote it, e.g. ${claim}: "${String(value)}"; claims are matched as exact strings`),
      );
      continue;
    }
    ids.push({
      metadata: {
        filter: JWT_FILTER_NAME,
        path: [{ key: JWT_PAYLOAD_METADATA_KEY }, { key: claim }],
        value: { string_match: { exact: value } },
      },
    });
  }
  return ids.length === 0 ? { any: true } : all('principal', ids);
}

function policies(vh: VirtualHostIR, list: RbacPolicyIR[], diagnostics: Diagnostic[]): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const policy of [...list].sort((a, b) => a.name.localeCompare(b.name))) {
    if (policy.principals.length === 0) {
      // "carries every claim of one of the principals" can never hold with no principals.
      diagnostics.push(
        fieldError('translate', policy.origin, [...policy.path, 'principals'], 'policy has no principals, so it would match no request', 'add a principal with the claims to require; to admit every token of a provider, require its issuer: `claims: {iss: <issuer>}`'),
      );
      continue;
    }
    out[policy.name] = {
      permissions: [permission(policy)],
      principals: policy.principals.map((_, i) => principal(policy, i, diagnostics)),
    };
  }
  if (!vh.jwt || vh.jwt.providers.length === 0) {
    const first = list[0]!;
    // The policy path ends in [..., 'policies', <name>]; point at the rbac option itself.
    const rbacPath = first.path.length >= 2 && first.path[first.path.length - 2] === 'policies' ? first.path.slice(0, -2) : first.path;
    diagnostics.push(
      fieldError('translate', first.origin, rbacPath, 'RBAC matches JWT claims, but this virtual host has no options.jwt, so no request could ever pass', 'add options.jwt with the provider whose tokens carry these claims'),
    );
  }
  return out;
}

export const rbacConcern: HttpFilterConcern = {
  filterName: RBAC_FILTER_NAME,
  translate(model: Model): ConcernResult {
    const result = emptyResult();
    if (!model.virtualHosts.some((vh) => vh.rbac && vh.rbac.policies.length > 0)) return result;
    for (const vh of model.virtualHosts) {
      const list = vh.rbac?.policies ?? [];
      if (list.length === 0) {
        result.perVirtualHost.set(vh.name, { '@type': `${TYPE}RBACPerRoute` });
        continue;
      }
      result.perVirtualHost.set(vh.name, {
        '@type': `${TYPE}RBACPerRoute`,
        rbac: { rules: { action: 'ALLOW', policies: policies(vh, list, result.diagnostics) } },
      });
    }
    result.httpFilter = { name: RBAC_FILTER_NAME, typed_config: { '@type': `${TYPE}RBAC` } };
    return result;
  },
};
