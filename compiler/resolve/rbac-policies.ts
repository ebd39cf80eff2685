/**
 * Gloo's RBAC policies (a virtual host's `options.rbac.policies`, or a
 * route's) -> IR, with the checks that a policy could match some request:
 * principals to match, and a JWT provider on the virtual host whose tokens
 * carry the claims.
 */
import { fieldError, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import type { RbacPolicyIR } from '../ir/model.js';
import type { RbacPoliciesSpec } from '../kinds/rbac.js';
import { checkNestedClaims } from './jwt-claims.js';
import { claimMatcher } from './rbac-matcher.js';

/** The policies as IR; problems are reported. `at`: the rbac option. */
export function rbacPolicies(
  spec: RbacPoliciesSpec,
  origin: Origin,
  at: FieldPath,
  hostProviders: readonly string[],
  diagnostics: Diagnostic[],
): RbacPolicyIR[] {
  const policies: RbacPolicyIR[] = Object.entries(spec).map(([pname, p]) => ({
    name: pname,
    // No permissions: any request of a matching principal (Gloo's meaning).
    methods: p.permissions?.methods ?? [],
    ...(p.permissions?.pathPrefix !== undefined ? { pathPrefix: p.permissions.pathPrefix } : {}),
    principals: (p.principals ?? []).map((pr, i) => {
      const principalAt = [...at, 'policies', pname, 'principals', i, 'jwtPrincipal'];
      return {
        claims: pr.jwtPrincipal.claims,
        ...claimMatcher(pr.jwtPrincipal, origin, principalAt, diagnostics),
        providers: payloadProviders(pr.jwtPrincipal.provider, hostProviders, origin, principalAt, diagnostics),
      };
    }),
    ...(p.nestedClaimDelimiter ? { nestedClaimDelimiter: p.nestedClaimDelimiter } : {}),
    origin,
    path: [...at, 'policies', pname],
  }));
  checkRbac(origin, at, policies, hostProviders.length > 0, diagnostics);
  for (const [pname, p] of Object.entries(spec))
    if (p.nestedClaimDelimiter)
      checkNestedClaims(p.principals ?? [], p.nestedClaimDelimiter, [...at, 'policies', pname], origin, diagnostics);
  return policies;
}

/** RBAC policies that could never match a request are errors (claim names and values are checked by the schema); `at`: the rbac option. */
export function checkRbac(
  origin: Origin,
  at: FieldPath,
  policies: RbacPolicyIR[],
  hasJwt: boolean,
  diagnostics: Diagnostic[],
): void {
  if (policies.length === 0) return;
  for (const policy of policies) {
    if (policy.principals.length === 0) {
      // "carries every claim of one of the principals" can never hold with no principals.
      diagnostics.push(
        fieldError(
          'resolve',
          origin,
          [...policy.path, 'principals'],
          'policy has no principals, so it would match no request',
          'add a principal with the claims to require; to admit every token of a provider, require its issuer: `claims: {iss: <issuer>}`',
        ),
      );
    }
  }
  if (!hasJwt) {
    diagnostics.push(
      fieldError(
        'resolve',
        origin,
        at,
        'RBAC matches JWT claims, but this virtual host has no options.jwt, so no request could ever pass',
        'add options.jwt with the provider whose tokens carry these claims',
      ),
    );
  }
}

/**
 * Gloo's jwtPrincipal.provider: the claims are read from that provider's
 * payload (each provider writes its own, under its name); unset, from
 * whichever provider verified the token. Envoy's requires_any stops at the
 * first provider that accepts a token, so there is one payload at most, the
 * one Gloo copies to its `principal` key. `at`: the jwtPrincipal.
 */
function payloadProviders(
  provider: string | undefined,
  hostProviders: readonly string[],
  origin: Origin,
  at: FieldPath,
  diagnostics: Diagnostic[],
): string[] {
  if (!provider) return [...hostProviders];
  // Without providers the whole rbac option is an error (checkRbac); one message is enough.
  if (hostProviders.length > 0 && !hostProviders.includes(provider))
    diagnostics.push(
      fieldError(
        'resolve',
        origin,
        [...at, 'provider'],
        `the virtual host has no JWT provider "${provider}" (its providers: ${hostProviders.join(', ')}), so no token would ever match`,
        "name one of the virtual host's options.jwt providers, or remove provider to accept a token of any of them",
      ),
    );
  return [provider];
}
