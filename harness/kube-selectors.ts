/**
 * Label and field selectors as the API server reads them in `labelSelector`
 * and `fieldSelector` (equality-based `a=b`, `a==b`, `a!=b`; set-based
 * `a in (x,y)`, `a notin (x)`, `a`, `!a`), for the API server double.
 */

export type ObjectPredicate = (object: KubeObject) => boolean;

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    resourceVersion?: string;
    generation?: number;
    uid?: string;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** Splits at commas outside parentheses. */
function terms(selector: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  out.push(selector.slice(start));
  return out.map((t) => t.trim()).filter((t) => t !== '');
}

type Lookup = (key: string) => string | undefined;

function termPredicate(term: string): (lookup: Lookup) => boolean {
  const set = /^(\S+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
  if (set) {
    const [, key, op, list] = set;
    const values = new Set(list.split(',').map((v) => v.trim()));
    return op === 'in'
      ? (l) => l(key) !== undefined && values.has(l(key)!)
      : (l) => l(key) === undefined || !values.has(l(key)!);
  }
  const inequality = /^([^!=\s]+)\s*!=\s*(\S*)$/.exec(term);
  if (inequality) return (l) => l(inequality[1]) !== inequality[2];
  const equality = /^([^!=\s]+)\s*==?\s*(\S*)$/.exec(term);
  if (equality) return (l) => l(equality[1]) === equality[2];
  const absent = /^!\s*(\S+)$/.exec(term);
  if (absent) return (l) => l(absent[1]) === undefined;
  if (/^\S+$/.test(term)) return (l) => l(term) !== undefined;
  throw new Error(`unable to parse requirement: ${JSON.stringify(term)}`);
}

/** The predicate of a `labelSelector`; throws (a 400 for the caller) on a term it cannot parse. */
export function labelSelector(selector: string | null): ObjectPredicate {
  if (!selector) return () => true;
  const predicates = terms(selector).map(termPredicate);
  return (object) => {
    const labels = object.metadata.labels ?? {};
    const lookup: Lookup = (key) => (Object.hasOwn(labels, key) ? labels[key] : undefined);
    return predicates.every((p) => p(lookup));
  };
}

/** The predicate of a `fieldSelector` over `metadata.name` and `metadata.namespace`, the fields every kind supports. */
export function fieldSelector(selector: string | null): ObjectPredicate {
  if (!selector) return () => true;
  const predicates = terms(selector).map((term) => {
    const key = /^([^!=\s]+)/.exec(term)?.[1];
    if (key !== 'metadata.name' && key !== 'metadata.namespace') {
      throw new Error(`field label not supported: ${key}`);
    }
    return termPredicate(term);
  });
  return (object) => {
    const lookup: Lookup = (key) =>
      key === 'metadata.name' ? object.metadata.name : (object.metadata.namespace ?? '');
    return predicates.every((p) => p(lookup));
  };
}
