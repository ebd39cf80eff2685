/**
 * Value templates of GraphQL resolvers, as Gloo writes them: `{$args.id}`,
 * `{$parent.user.name}`, `{$headers.authorization}`, `{$body.items[0].id}`,
 * and the spelling of an argument some GraphQLApi references use, `{$the service.id}`. Parsed here
 * once for both sides: the compiler checks them (syntax, argument names) and
 * sluice-graphql renders them.
 */

export type TemplateSource = 'args' | 'parent' | 'headers' | 'body';

export interface Placeholder {
  source: TemplateSource;
  /** Keys and indexes below the source: `a.b[0]` is ['a', 'b', 0]. */
  path: (string | number)[];
  /** As written, for error messages. */
  text: string;
}

export type TemplatePart = string | Placeholder;

const PLACEHOLDER = /\{\$([^{}]*)\}/g;
const SOURCES: Record<string, TemplateSource> = {
  args: 'args',
  'the service': 'args',
  parent: 'parent',
  headers: 'headers',
  body: 'body',
};

export class TemplateError extends Error {}

function parsePath(text: string, raw: string): Placeholder {
  const m = /^(args|the service|parent|headers|body)((?:\.[^.[\]\s]+|\[\d+\])+)$/.exec(raw);
  if (!m)
    throw new TemplateError(`${text} is not {$args.<name>}, {$parent.<field>}, {$headers.<name>} or {$body.<path>}`);
  const source = SOURCES[m[1]!]!;
  const path: (string | number)[] = [];
  for (const step of m[2]!.matchAll(/\.([^.[\]\s]+)|\[(\d+)\]/g))
    path.push(step[1] !== undefined ? step[1] : Number(step[2]));
  if (source === 'headers' && (path.length !== 1 || typeof path[0] !== 'string'))
    throw new TemplateError(`${text}: a header is named by one key, as {$headers.<name>}`);
  return { source, path, text };
}

/** The literal text and placeholders of a template string, in order. */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const m of template.matchAll(PLACEHOLDER)) {
    if (m.index! > last) parts.push(template.slice(last, m.index));
    parts.push(parsePath(m[0], m[1]!));
    last = m.index! + m[0].length;
  }
  if (last < template.length) parts.push(template.slice(last));
  const rest = parts.filter((p): p is string => typeof p === 'string').join('');
  if (rest.includes('{$')) throw new TemplateError(`"${template}" has an unclosed {$...} placeholder`);
  return parts;
}

/** Every placeholder in a JSON value whose strings may hold templates. */
export function placeholdersIn(json: unknown): Placeholder[] {
  if (typeof json === 'string') return parseTemplate(json).filter((p): p is Placeholder => typeof p !== 'string');
  if (Array.isArray(json)) return json.flatMap(placeholdersIn);
  if (json && typeof json === 'object') return Object.values(json).flatMap(placeholdersIn);
  return [];
}

export interface TemplateScope {
  args?: unknown;
  parent?: unknown;
  /** Lower-case header names. */
  headers?: Record<string, string | string[] | undefined>;
  body?: unknown;
}

function lookup(scope: TemplateScope, p: Placeholder): unknown {
  if (p.source === 'headers') {
    const v = scope.headers?.[String(p.path[0]).toLowerCase()];
    return Array.isArray(v) ? v.join(',') : v;
  }
  let v: unknown = scope[p.source];
  for (const key of p.path) {
    if (v === null || v === undefined || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[key];
  }
  return v;
}

function asText(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

export type Rendered = (scope: TemplateScope) => unknown;

/**
 * A renderer for one template string: a string that is exactly one
 * placeholder yields the value itself (a number stays a number, an object an
 * object, a missing value undefined); otherwise the text with each value
 * written in.
 */
export function compileTemplate(template: string): Rendered {
  const parts = parseTemplate(template);
  if (parts.length === 0) return () => template;
  if (parts.length === 1) {
    const only = parts[0]!;
    return typeof only === 'string' ? () => only : (scope) => lookup(scope, only);
  }
  return (scope) => parts.map((p) => (typeof p === 'string' ? p : asText(lookup(scope, p)))).join('');
}

/**
 * A renderer that always yields text (header values, paths, query values):
 * a missing value is empty, an object its JSON; `encode` is applied to each
 * value written in (encodeURIComponent in a path), never to literal text.
 */
export function compileTextTemplate(
  template: string,
  encode: (text: string) => string = (text) => text,
): (scope: TemplateScope) => string {
  const parts = parseTemplate(template);
  return (scope) => parts.map((p) => (typeof p === 'string' ? p : encode(asText(lookup(scope, p))))).join('');
}

/** A renderer for a JSON value whose strings may hold templates (keys are literal). */
export function compileJsonTemplate(json: unknown): Rendered {
  if (typeof json === 'string') return compileTemplate(json);
  if (Array.isArray(json)) {
    const items = json.map(compileJsonTemplate);
    return (scope) => items.map((r) => r(scope));
  }
  if (json && typeof json === 'object') {
    const entries = Object.entries(json).map(([k, v]) => [k, compileJsonTemplate(v)] as const);
    return (scope) => {
      const out: Record<string, unknown> = {};
      for (const [k, r] of entries) {
        const v = r(scope);
        if (v !== undefined) out[k] = v;
      }
      return out;
    };
  }
  return () => json;
}
