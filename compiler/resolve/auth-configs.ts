/**
 * An AuthConfig: each config resolved by the resolver of its kind
 * (./extauth/), its name (Gloo's `config_<index>` when unnamed) unique, and
 * booleanExpr parsed and naming only configs that exist.
 */
import { BoolExprError, boolExprNames, parseBoolExpr } from '../../contract/boolean-expr.js';
import { fieldError, type Diagnostic } from '../diagnostics.js';
import type { AuthConfigEntryIR, AuthConfigIR, AuthKindIR } from '../ir/model.js';
import type { AuthConfigSpec } from '../kinds/auth-config.js';
import type { Resource } from '../validate/validate.js';
import type { Lookups } from './lookups.js';
import { resolveApiKey } from './extauth/api-key.js';
import { resolveBasicAuth } from './extauth/basic-auth.js';
import { resolveLdap } from './extauth/ldap.js';
import { resolveOAuth2 } from './extauth/oauth2.js';
import { resolveOpaServer } from './extauth/opa-server.js';
import { resolvePassThrough } from './extauth/pass-through.js';

type ConfigSpec = AuthConfigSpec['configs'][number];

/** The kind a config sets, resolved; undefined after reporting why not. */
function resolveKind(
  ac: Resource,
  index: number,
  spec: ConfigSpec,
  lookups: Lookups,
  diagnostics: Diagnostic[],
): AuthKindIR | undefined {
  const path = ['spec', 'configs', index];
  if (spec.ldap) {
    const ldap = resolveLdap(ac, [...path, 'ldap'], spec.ldap, lookups, diagnostics);
    return ldap && { kind: 'ldap', ldap };
  }
  if (spec.apiKeyAuth) {
    const apiKeyAuth = resolveApiKey(ac, [...path, 'apiKeyAuth'], spec.apiKeyAuth, lookups, diagnostics);
    return apiKeyAuth && { kind: 'apiKeyAuth', apiKeyAuth };
  }
  if (spec.basicAuth) {
    const basicAuth = resolveBasicAuth(ac, [...path, 'basicAuth'], spec.basicAuth, diagnostics);
    return basicAuth && { kind: 'basicAuth', basicAuth };
  }
  if (spec.passThroughAuth) {
    const passThroughAuth = resolvePassThrough(
      ac,
      [...path, 'passThroughAuth'],
      spec.passThroughAuth,
      lookups,
      diagnostics,
    );
    return passThroughAuth && { kind: 'passThroughAuth', passThroughAuth };
  }
  if (spec.opaServerAuth) {
    const opaServerAuth = resolveOpaServer(ac, [...path, 'opaServerAuth'], spec.opaServerAuth, diagnostics);
    return opaServerAuth && { kind: 'opaServerAuth', opaServerAuth };
  }
  if (spec.oauth2) {
    const oauth2 = resolveOAuth2(ac, [...path, 'oauth2'], spec.oauth2, lookups, diagnostics);
    return oauth2 && { kind: 'oauth2', oauth2 };
  }
  if (spec.jwt) return { kind: 'jwt' };
  if (spec.oauth2) {
    const oauth2 = resolveOAuth2(ac, [...path, 'oauth2'], spec.oauth2, lookups, diagnostics);
    return oauth2 && { kind: 'oauth2', oauth2 };
  }
  return undefined;
}

export function resolveAuthConfig(ac: Resource, lookups: Lookups, diagnostics: Diagnostic[]): AuthConfigIR {
  const spec = ac.spec as unknown as AuthConfigSpec;
  const configs: AuthConfigEntryIR[] = [];
  const names = new Map<string, number>();
  (spec.configs ?? []).forEach((c, i) => {
    const name = c.name ?? `config_${i}`;
    const first = names.get(name);
    if (first !== undefined)
      diagnostics.push(
        fieldError(
          'resolve',
          ac.origin,
          ['spec', 'configs', i, 'name'],
          `"${name}" is also the name of configs[${first}]`,
          'give each config its own name; booleanExpr refers to configs by name',
        ),
      );
    else names.set(name, i);
    const kind = resolveKind(ac, i, c, lookups, diagnostics);
    if (kind) configs.push({ ...kind, ...(c.name !== undefined ? { name: c.name } : {}) });
  });
  const ir: AuthConfigIR = { name: `${ac.namespace}.${ac.name}`, origin: ac.origin, configs };
  if (spec.booleanExpr !== undefined) {
    const at = ['spec', 'booleanExpr'];
    try {
      const unknown = boolExprNames(parseBoolExpr(spec.booleanExpr)).filter((n) => !names.has(n));
      if (unknown.length)
        diagnostics.push(
          fieldError(
            'resolve',
            ac.origin,
            at,
            `names no config: ${unknown.map((n) => `"${n}"`).join(', ')}`,
            `name the configs it combines (configs[].name); they are ${[...names.keys()].map((n) => `"${n}"`).join(', ')}`,
          ),
        );
      else ir.booleanExpr = spec.booleanExpr;
    } catch (err) {
      if (!(err instanceof BoolExprError)) throw err;
      diagnostics.push(
        fieldError(
          'resolve',
          ac.origin,
          at,
          `is not a boolean expression: ${err.message}`,
          'combine config names with &&, || and !, and parentheses, e.g. "(basic1 || basic2) && !blocked"',
        ),
      );
    }
  }
  if (spec.failOnRedirect) ir.failOnRedirect = true;
  return ir;
}
