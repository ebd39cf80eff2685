/**
 * The claim names of `options.jwt` and `options.rbac`: Gloo's claimsToHeaders
 * (a claim copied to a request header) and nestedClaimDelimiter (a claim name
 * that is a path into the token). Both end up as paths into the verified
 * payload, so an empty step (`a..b`, `.a`) could never name a claim and is an error.
 */
import { fieldError, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import type { VirtualHostIR } from '../ir/model.js';
import type { JwtProviderSpec } from '../kinds/virtual-host-options.js';
import { headerProblem } from './header-lists.js';

type ProviderSpec = Pick<JwtProviderSpec, 'tokenSource' | 'claimsToHeaders'>;

/** The steps of a claim path; undefined when one is empty. */
export function claimPath(claim: string, delimiter: string): string[] | undefined {
  const steps = claim.split(delimiter);
  return steps.some((s) => s === '') ? undefined : steps;
}

/**
 * Each provider's claimsToHeaders, checked. The virtual host strips every
 * one of these headers from requests before jwt_authn looks for tokens
 * (translate/filters/claim-headers.ts), so none may be a header any of its
 * providers reads tokens from.
 */
export function claimHeaders(
  providers: Record<string, ProviderSpec>,
  at: FieldPath,
  origin: Origin,
  diagnostics: Diagnostic[],
): Map<string, { claim: string; header: string }[]> {
  const tokenHeaders = new Map<string, string>();
  for (const [name, p] of Object.entries(providers)) {
    // Without tokenSource, Envoy reads `Authorization: Bearer` (and ?access_token=).
    for (const h of p.tokenSource ? (p.tokenSource.headers ?? []) : [{ header: 'Authorization' }])
      tokenHeaders.set(h.header.toLowerCase(), name);
  }
  const out = new Map<string, { claim: string; header: string }[]>();
  for (const [name, p] of Object.entries(providers)) {
    if (!p.claimsToHeaders) continue;
    const list: { claim: string; header: string }[] = [];
    p.claimsToHeaders.forEach((c, i) => {
      const path = [...at, name, 'claimsToHeaders', i];
      let ok = true;
      const fail = (field: string, message: string, hint: string) => {
        diagnostics.push(fieldError('resolve', origin, [...path, field], message, hint));
        ok = false;
      };
      if (c.append) {
        fail(
          'append',
          "Envoy's jwt_authn removes a client-sent copy of the header before it adds the claim, so it cannot append to it (and appending would trust whatever the client sent)",
          'remove append (or set it to false): the header then carries only the claim',
        );
      }
      const problem = headerProblem(c.header);
      if (problem) fail('header', problem, 'use another header name, e.g. x-jwt-sub');
      const reader = tokenHeaders.get(c.header.toLowerCase());
      if (!problem && reader !== undefined) {
        fail(
          'header',
          `"${c.header}" is where provider ${reader} reads tokens; it is removed from requests before tokens are looked for, so no token would ever be found`,
          'use another header name, e.g. x-jwt-sub',
        );
      }
      if (!claimPath(c.claim, '.')) {
        fail(
          'claim',
          `"${c.claim}" has an empty step between dots; Envoy reads the claim name as a path split at ".", so it would never name a claim`,
          'write a claim name such as sub, or a path such as org.team',
        );
      }
      if (ok) list.push({ claim: c.claim, header: c.header });
    });
    out.set(name, list);
  }
  return out;
}

/** A policy's claim names as paths: each must split into non-empty steps. */
export function checkNestedClaims(
  principals: { jwtPrincipal: { claims: Record<string, string> } }[],
  delimiter: string,
  at: FieldPath,
  origin: Origin,
  diagnostics: Diagnostic[],
): void {
  principals.forEach((p, i) => {
    for (const claim of Object.keys(p.jwtPrincipal.claims)) {
      if (!claimPath(claim, delimiter)) {
        diagnostics.push(
          fieldError(
            'resolve',
            origin,
            [...at, 'principals', i, 'jwtPrincipal', 'claims', claim],
            `claim "${claim}" has an empty step when split at nestedClaimDelimiter "${delimiter}", so it would never name a claim`,
            `write names such as org${delimiter}team, or remove nestedClaimDelimiter to match the name as written`,
          ),
        );
      }
    }
  });
}

/**
 * A route that asks for no token (jwt.disable) but is chosen by a claim
 * header: Envoy picks the route with the client's copy of the header, before
 * it is removed, and no jwt_authn run chooses again (clear_route_cache), so
 * any client could reach the route by sending the header. An error at the
 * claimsToHeaders entry.
 */
export function claimHeaderRouteProblems(virtualHosts: VirtualHostIR[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const vh of virtualHosts) {
    if (!vh.jwt) continue;
    for (const provider of vh.jwt.providers) {
      provider.claimsToHeaders?.forEach((c, i) => {
        const header = c.header.toLowerCase();
        const route = vh.routes.find(
          (r) => r.options?.jwtDisabled && r.match.headers.some((h) => h.name.toLowerCase() === header),
        );
        if (!route) return;
        out.push(
          fieldError(
            'resolve',
            provider.origin,
            [...provider.path, 'claimsToHeaders', i, 'header'],
            `route ${route.name} (path ${route.match.path.value}) matches on ${header} but has jwt disabled: the route is chosen by the client's copy of the header, so any client could reach it`,
            'remove jwt.disable from that route, or match it on something else',
          ),
        );
      });
    }
  }
  return out;
}
