/** Gloo's RBAC policies (rbac.proto's ExtensionSettings.policies), on a virtual host or a route. */
import { Type, type Static } from '@sinclair/typebox';
import { note } from './gloo.js';
import { httpMethod, lineOrEmpty, mapOf, object, pathPrefix, protoEnum, singleLine } from './schema.js';

const rbacPolicy = object({
  permissions: note(
    object({ methods: Type.Array(httpMethod, { uniqueItems: true }), pathPrefix }),
    'none: any request of a matching principal, as Gloo',
  ),
  principals: Type.Array(
    object(
      {
        jwtPrincipal: object(
          {
            claims: mapOf(lineOrEmpty, singleLine, { minProperties: 1 }),
            provider: note(
              lineOrEmpty,
              "a provider of the virtual host's options.jwt: the claims are those of a token that provider verified; empty or unset: a token of any of its providers",
            ),
            matcher: note(
              protoEnum(['EXACT_STRING', 'BOOLEAN', 'LIST_CONTAINS', 'REGEX_MATCH']),
              'EXACT_STRING (unset): the claim is that string; BOOLEAN: the claim is the boolean true or false the value names; LIST_CONTAINS: the claim is a list with that string; REGEX_MATCH: the claim is a string the value (an RE2 regular expression) matches whole',
            ),
          },
          ['claims'],
        ),
      },
      ['jwtPrincipal'],
    ),
  ),
  // Empty: claim names as written (Gloo's default).
  nestedClaimDelimiter: note(
    lineOrEmpty,
    'claim names are split by it into a path in the token (e.g. "." makes org.team the team field of org); empty or unset: names as written',
  ),
});

/** The policies by name: a request passes when one of them matches it. */
export const rbacPolicies = mapOf(rbacPolicy, singleLine, { minProperties: 1 });

export type RbacPoliciesSpec = Static<typeof rbacPolicies>;
