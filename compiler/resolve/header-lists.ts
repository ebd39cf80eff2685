/**
 * Gloo's header lists (headerManipulation, a Gateway's
 * earlyHeaderManipulation) -> IR: names Envoy or Sluice owns refused, values
 * within Envoy's bounds, and a Secret's entries (headerSecretRef) checked as
 * headers without ever quoting a value.
 */
import { headerValueProblem, USER_ID_HEADER } from '../../contract/extauth.js';
import { GRAPHQL_API_HEADER } from '../../contract/names.js';
import type { FieldPath } from '../diagnostics.js';
import type { HeaderAddIR, HeaderManipulationIR } from '../ir/model.js';
import type { HeaderManipulationSpec } from '../kinds/route-options.js';
import type { HeaderSecretLookup } from './header-secrets.js';
import type { OptionReport } from './option-report.js';

type HeaderValueSpec = NonNullable<HeaderManipulationSpec['requestHeadersToAdd']>[number];

/**
 * Headers Sluice sets itself to carry decisions between Envoy and its sidecars
 * (the GraphQL API a route names, the user extauth authenticated): a user's
 * own value must never stand in for them. Envoy itself refuses pseudo-headers
 * and Host in these lists.
 */
const RESERVED_HEADERS: ReadonlyMap<string, string> = new Map([
  [GRAPHQL_API_HEADER, 'Sluice sets it to name the GraphQL API of a route'],
  [USER_ID_HEADER, 'sluice-extauth sets it to the authenticated user (and Sluice strips it on hosts without extauth)'],
  ['host', 'Envoy does not let header lists change Host; use hostRewrite'],
]);

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Envoy's bound on a header name or value in these lists (HeaderValue, max_bytes). */
const MAX_HEADER_BYTES = 16384;

export function headerProblem(name: string): string | undefined {
  if (Buffer.byteLength(name) > MAX_HEADER_BYTES)
    return `the header name is ${Buffer.byteLength(name)} bytes; Envoy takes at most ${MAX_HEADER_BYTES}`;
  const lower = name.toLowerCase();
  if (lower.startsWith(':')) return `"${name}" is a pseudo-header, which Envoy does not let header lists change`;
  const why = RESERVED_HEADERS.get(lower);
  return why && `"${name}" cannot be set or removed here: ${why}`;
}

/** Why a header value cannot be sent, naming it `what` (a Secret's value is never quoted); undefined when it can. */
function headerValueProblemOf(value: string, what: string, secret: boolean): string | undefined {
  const bytes = Buffer.byteLength(value);
  if (bytes > MAX_HEADER_BYTES) return `${what} is ${bytes} bytes; Envoy takes at most ${MAX_HEADER_BYTES}`;
  // Inline values are single lines (the schema); a Secret's entry can hold anything.
  const invalid = secret ? headerValueProblem(value) : undefined;
  return invalid && `${what} ${invalid}`;
}

/** A list of headers to add at `path` (Gloo's HeaderValueOption list): each header, or each entry of a Secret, checked. */
export function headerAdds(
  list: readonly HeaderValueSpec[] | undefined,
  path: FieldPath,
  report: OptionReport,
  secrets: HeaderSecretLookup,
): HeaderAddIR[] {
  return (list ?? []).flatMap((h, i): HeaderAddIR[] => {
    // Gloo's default: append to a header the request already has (append: false overwrites it).
    const append = h.append ?? true;
    const at = [...path, i];
    if (!h.header) {
      const found = secrets([...at, 'headerSecretRef'], h.headerSecretRef!, report);
      return (found?.entries ?? []).flatMap(([key, value]) => {
        const entry = `Secret ${found!.secret}'s entry ${JSON.stringify(key)}`;
        const nameProblem = HEADER_NAME.test(key)
          ? headerProblem(key)
          : "is not a header name (letters, digits and !#$%&'*+-.^_`|~ only)";
        if (nameProblem) {
          report.error([...at, 'headerSecretRef'], `${entry}: ${nameProblem}`, 'rename the entry in the Secret');
          return [];
        }
        const valueProblem = headerValueProblemOf(value, `the value of ${entry}`, true);
        if (valueProblem) {
          report.error(
            [...at, 'headerSecretRef'],
            valueProblem,
            'fix the entry in the Secret (a value made with echo ends with a line break: use --from-literal or echo -n)',
          );
          return [];
        }
        return [{ key, value, append, secret: found!.secret }];
      });
    }
    const problem = headerProblem(h.header.key);
    if (problem) report.error([...at, 'header', 'key'], problem, 'use another header name');
    const valueProblem = headerValueProblemOf(h.header.value ?? '', 'the value', false);
    if (valueProblem) report.error([...at, 'header', 'value'], valueProblem, 'shorten it');
    if (problem || valueProblem) return [];
    return [{ key: h.header.key, value: h.header.value ?? '', append }];
  });
}

/** A list of header names to remove at `path`, checked. */
export function headerRemoves(list: readonly string[] | undefined, path: FieldPath, report: OptionReport): string[] {
  return (list ?? []).filter((name, i) => {
    const problem = headerProblem(name);
    if (problem) report.error([...path, i], problem, 'remove it from the list');
    return !problem;
  });
}

export function headerManipulation(
  spec: HeaderManipulationSpec,
  path: FieldPath,
  report: OptionReport,
  secrets: HeaderSecretLookup,
): HeaderManipulationIR {
  return {
    requestAdd: headerAdds(spec.requestHeadersToAdd, [...path, 'requestHeadersToAdd'], report, secrets),
    requestRemove: headerRemoves(spec.requestHeadersToRemove, [...path, 'requestHeadersToRemove'], report),
    responseAdd: headerAdds(spec.responseHeadersToAdd, [...path, 'responseHeadersToAdd'], report, secrets),
    responseRemove: headerRemoves(spec.responseHeadersToRemove, [...path, 'responseHeadersToRemove'], report),
  };
}
