/** Gloo's `opaServerAuth` config: the server's address (host:port, or an http:// URL as Gloo's sidecar form), the package and rule checked. */
import { hostPortProblem, REGO_PACKAGE, REGO_RULE } from '../../../contract/extauth.js';
import { fieldError, quote, type Diagnostic, type FieldPath } from '../../diagnostics.js';
import type { OpaServerIR } from '../../ir/model.js';
import type { OpaServerAuthSpec } from '../../kinds/extauth/opa.js';
import type { Resource } from '../../validate/validate.js';

export function resolveOpaServer(
  ac: Resource,
  path: FieldPath,
  spec: OpaServerAuthSpec,
  diagnostics: Diagnostic[],
): OpaServerIR | undefined {
  let ok = true;
  const fail = (field: string, message: string, hint: string) => {
    diagnostics.push(fieldError('resolve', ac.origin, [...path, field], message, hint));
    ok = false;
  };
  const m = /^(https?:\/\/)?([^/]+)\/?$/.exec(spec.serverAddr);
  const problem = m ? hostPortProblem(m[2]!) : 'is not host:port';
  if (problem)
    fail(
      'serverAddr',
      `${quote(spec.serverAddr)} ${problem}`,
      'e.g. opa.policies.svc.cluster.local:8181 or http://127.0.0.1:8181',
    );
  if (!REGO_PACKAGE.test(spec.package))
    fail('package', `${quote(spec.package)} is not a Rego package name`, 'dotted identifiers, e.g. envoy.authz');
  if (spec.ruleName !== undefined && !REGO_RULE.test(spec.ruleName))
    fail(
      'ruleName',
      `${quote(spec.ruleName)} is not a rule name`,
      'an identifier, optionally followed by /paths into its value, e.g. allow or decision/allowed',
    );
  if (!ok) return undefined;
  return {
    serverUrl: `${m![1] ?? 'http://'}${m![2]}`,
    package: spec.package,
    ...(spec.ruleName ? { ruleName: spec.ruleName } : {}),
  };
}
