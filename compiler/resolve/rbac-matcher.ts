/** Gloo's JWTPrincipal.matcher: how each claim of a principal is compared with its value. */
import { fieldError, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import type { RbacPolicyIR } from '../ir/model.js';
import { re2Problem } from './matchers.js';

type Principal = { claims: Record<string, string>; matcher?: string };

/** The principal's matcher for the IR (EXACT_STRING is the default, left unset); problems are reported. `at`: the jwtPrincipal. */
export function claimMatcher(
  principal: Principal,
  origin: Origin,
  at: FieldPath,
  diagnostics: Diagnostic[],
): Pick<RbacPolicyIR['principals'][number], 'matcher'> {
  const { matcher } = principal;
  if (matcher === 'REGEX_MATCH') {
    for (const [claim, value] of Object.entries(principal.claims)) {
      const problem = re2Problem(value);
      if (problem)
        diagnostics.push(
          fieldError(
            'resolve',
            origin,
            [...at, 'claims', claim],
            `RE2 refuses the pattern: ${problem}`,
            'write an RE2 regular expression (no lookaround or backreferences); it must match the whole claim',
          ),
        );
    }
    return { matcher };
  }
  if (matcher === 'BOOLEAN') {
    for (const [claim, value] of Object.entries(principal.claims))
      if (value !== 'true' && value !== 'false')
        diagnostics.push(
          fieldError(
            'resolve',
            origin,
            [...at, 'claims', claim],
            `"${value}" is not a boolean; with matcher BOOLEAN the value is "true" or "false"`,
            'write "true" or "false", or use matcher EXACT_STRING for a string claim',
          ),
        );
    return { matcher };
  }
  return matcher === 'LIST_CONTAINS' ? { matcher } : {};
}
