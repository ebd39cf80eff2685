/**
 * Gloo's route matchers -> RouteMatchIR, with the checks a user can fail:
 * one path specifier per matcher, regexes RE2 accepts (Envoy compiles them
 * with RE2, so a JavaScript-only construct such as a lookahead would be
 * refused by Envoy, not by us, without this), and routes an earlier route
 * shadows entirely (a warning naming both).
 */
import { createRequire } from 'node:module';
import {
  asWarning,
  fieldError,
  fieldName,
  placeOf,
  type Diagnostic,
  type FieldPath,
  type Origin,
} from '../diagnostics.js';
import type { HeaderMatchIR, QueryMatchIR, RouteMatchIR, StringMatchIR } from '../ir/model.js';
import type { MatcherSpec } from '../kinds/matchers.js';

/** re2-wasm, loaded at the first regex: its WebAssembly instance reserves a 16 MiB heap, which a process whose inputs have no regex (most `serve`s) never needs. */
let re2: typeof import('re2-wasm') | undefined;
const loadRe2 = () => (re2 ??= createRequire(import.meta.url)('re2-wasm') as typeof import('re2-wasm'));

/** Answers by pattern: inputs repeat patterns, and each check costs RE2 a compile. Cleared when it grows past MAX_CHECKED. */
const checked = new Map<string, string | undefined>();
const MAX_CHECKED = 10_000;

/**
 * Why RE2 refuses `pattern`, or undefined when it compiles. The compiled RE2
 * lives in re2-wasm's fixed 16 MiB heap until deleted: without the delete,
 * some 10,000 patterns exhaust it and the process aborts.
 */
export function re2Problem(pattern: string): string | undefined {
  if (checked.has(pattern)) return checked.get(pattern);
  let problem: string | undefined;
  // Loaded outside the try: a missing or broken re2-wasm is our failure, not the pattern's.
  const { RE2 } = loadRe2();
  try {
    (new RE2(pattern, 'u') as unknown as { wrapper: { delete(): void } }).wrapper.delete();
  } catch (e) {
    problem = re2Reason((e as Error).message, pattern);
  }
  if (checked.size >= MAX_CHECKED) checked.clear();
  checked.set(pattern, problem);
  return problem;
}

/**
 * RE2's reason from re2-wasm's message, quoting only text the user wrote.
 * re2-wasm writes `Invalid regular expression: /<pattern>/u: <reason>`, the
 * pattern with each "/" escaped as a JavaScript literal would have it; RE2's
 * reason (`missing ): ...`) quotes the text it was handed, which re2-wasm
 * rewrote further (`\/`, `\u00e9` as `\x{00e9}`). A quoted part is kept when
 * it is in the pattern as written (once "\/" is read back as "/"), and left
 * out otherwise: the error already names the field that holds the pattern.
 */
function re2Reason(message: string, pattern: string): string {
  // re2-wasm's own escaping, to find where its message ends and RE2's begins (a pattern may hold "/u: " itself).
  const head = `Invalid regular expression: /${pattern.replace(/(^|[^\\])((?:\\\\)*)\//g, '$1$2\\/')}/u: `;
  const at = message.startsWith(head) ? head.length : message.lastIndexOf('/u: ') + 4;
  const reason = at >= 4 ? message.slice(at) : message;
  const colon = reason.indexOf(': ');
  if (colon === -1) return reason;
  const quoted = reason.slice(colon + 2);
  const written = [quoted, quoted.replaceAll('\\/', '/')].find((text) => pattern.includes(text));
  return written === undefined ? reason.slice(0, colon) : `${reason.slice(0, colon)}: ${written}`;
}

const REGEX_HINT =
  'write an RE2 regular expression (no lookaround or backreferences): https://github.com/google/re2/wiki/Syntax';

/** One route's matchers (none: prefix "/"), or undefined after reporting what is wrong. */
export function resolveMatchers(
  matchers: MatcherSpec[] | undefined,
  path: FieldPath,
  origin: Origin,
  diagnostics: Diagnostic[],
): RouteMatchIR[] | undefined {
  if (!matchers || matchers.length === 0)
    return [
      { path: { kind: 'prefix', value: '/' }, caseSensitive: true, headers: [], queryParameters: [], methods: [] },
    ];
  const before = diagnostics.length;
  const regexOk = (at: FieldPath, pattern: string): boolean => {
    const problem = re2Problem(pattern);
    if (problem)
      diagnostics.push(
        fieldError(
          'resolve',
          origin,
          at,
          `${JSON.stringify(pattern)} is not a regular expression Envoy accepts: ${problem}`,
          REGEX_HINT,
        ),
      );
    return !problem;
  };
  const stringMatch = (at: FieldPath, value: string, regex: boolean | undefined): StringMatchIR => {
    if (regex) regexOk(at, value);
    return { kind: regex ? 'regex' : 'exact', value };
  };
  const out = matchers.map((m, i): RouteMatchIR => {
    const at = [...path, i];
    const given = (['prefix', 'exact', 'regex'] as const).filter((k) => m[k] !== undefined);
    if (given.length > 1)
      diagnostics.push(
        fieldError(
          'resolve',
          origin,
          [...at, given[1]!],
          `a matcher has one path condition, and this one has ${given.join(' and ')}`,
          'keep one of them, or write a second matcher (any matcher of a route selects it)',
        ),
      );
    const kind = given[0] ?? 'prefix';
    const value = m[kind] ?? '/';
    if (kind === 'regex') regexOk([...at, 'regex'], value);
    const headers = (m.headers ?? []).map((h, j): HeaderMatchIR => ({
      name: h.name,
      // Gloo: an empty value means "present".
      ...(h.value ? { value: stringMatch([...at, 'headers', j, 'value'], h.value, h.regex) } : {}),
      invert: h.invertMatch === true,
    }));
    const queryParameters = (m.queryParameters ?? []).map((q, j): QueryMatchIR => ({
      name: q.name,
      ...(q.value ? { value: stringMatch([...at, 'queryParameters', j, 'value'], q.value, q.regex) } : {}),
    }));
    return {
      path: { kind, value },
      caseSensitive: m.caseSensitive !== false,
      headers,
      queryParameters,
      methods: m.methods ?? [],
    };
  });
  return diagnostics.length === before ? out : undefined;
}

/** A route's matchers with where each was written. */
export interface PlacedMatch {
  match: RouteMatchIR;
  path: FieldPath;
}

/**
 * Warnings for routes every matcher of which an earlier route's matcher
 * covers: Envoy takes the first route that matches, so such a route is
 * never reached. Conservative: only shadowing that holds for every request.
 */
export function shadowWarnings(
  routes: { path: FieldPath; matches: PlacedMatch[]; origin?: Origin }[],
  origin: Origin,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  routes.forEach((route, i) => {
    const by = route.matches.map((m) =>
      routes
        .slice(0, i)
        .flatMap((r) => r.matches)
        .find((earlier) => covers(earlier.match, m.match)),
    );
    if (route.matches.length === 0 || by.some((b) => b === undefined)) return;
    const first = by[0]!;
    // Delegated routes come from RouteTables: name the other resource when it is not this one.
    const at = route.origin ?? origin;
    const firstOrigin = routes.find((r) => r.matches.includes(first))?.origin ?? origin;
    const where =
      firstOrigin === at
        ? fieldName(at, first.path)
        : `${fieldName(firstOrigin, first.path)} of ${firstOrigin.resource} (${placeOf(firstOrigin, first.path)})`;
    out.push(
      asWarning(
        fieldError(
          'resolve',
          at,
          route.path,
          `this route is never used: ${where}, earlier on the same host, matches every request it matches`,
          'move this route before the one that shadows it, or remove it',
        ),
      ),
    );
  });
  return out;
}

/** Whether every request `b` matches, `a` matches too. */
function covers(a: RouteMatchIR, b: RouteMatchIR): boolean {
  if (!pathCovers(a, b)) return false;
  if (a.methods.length > 0 && (b.methods.length === 0 || !b.methods.every((m) => a.methods.includes(m)))) return false;
  const same = (x: unknown) => (y: unknown) => JSON.stringify(x) === JSON.stringify(y);
  return (
    a.headers.every((h) => b.headers.some(same(h))) && a.queryParameters.every((q) => b.queryParameters.some(same(q)))
  );
}

function pathCovers(a: RouteMatchIR, b: RouteMatchIR): boolean {
  if (a.path.kind === 'prefix' && a.path.value === '/') return true;
  if (a.path.kind === 'regex' || b.path.kind === 'regex')
    return a.path.kind === b.path.kind && a.path.value === b.path.value;
  // A case-sensitive `a` covers only a case-sensitive `b`: "/API" matches an insensitive "/api" but not a sensitive one.
  if (a.caseSensitive && !b.caseSensitive) return false;
  const fold = (s: string) => (a.caseSensitive ? s : s.toLowerCase());
  if (a.path.kind === 'exact') return b.path.kind === 'exact' && fold(a.path.value) === fold(b.path.value);
  return fold(b.path.value).startsWith(fold(a.path.value));
}
