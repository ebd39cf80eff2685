/**
 * Gloo's route delegation: a route with `delegateAction` hands its prefix to
 * RouteTables (by ref or by label selector), whose routes are inlined in its
 * place, recursively. Gloo's rules: the delegating route has a single prefix
 * matcher; every delegated path starts with that prefix and keeps the
 * parent's case sensitivity, headers, query parameters and methods (or
 * inherits them with inheritableMatchers / inheritablePathMatchers); tables
 * a selector matches are inlined by ascending weight, and tables of equal
 * weight have their routes sorted by path specificity; a delegated route
 * takes each of the delegating route's options it does not set itself.
 */
import {
  asWarning,
  fieldError,
  formatPath,
  notFound,
  placeOf,
  quote,
  type Diagnostic,
  type FieldPath,
} from '../diagnostics.js';
import type { RouteMatchIR, RouteOptionsIR } from '../ir/model.js';
import type { RouteOptionsSpec } from '../kinds/route-options.js';
import type { DelegateActionSpec, RouteSpec } from '../kinds/routes.js';
import type { Resource } from '../validate/validate.js';
import { refOf, showRef } from './index.js';
import { checkExpressions, labelsOf, matchesLabels } from './label-expressions.js';
import type { Lookups } from './lookups.js';
import { resolveMatchers } from './matchers.js';
import { byOwner, delegatedOptions, ownOptions, takes, type SourcedOption } from './option-refs.js';
import { optionApplies, type RouteActionField } from './route-options.js';

/** How many RouteTables deep delegation may nest (Gloo sets no bound; a chain this long is a mistake). */
export const MAX_DELEGATION_DEPTH = 8;

/** How many routes delegation may inline into one virtual host: selectors that match each other's tables multiply routes at every level. */
export const MAX_DELEGATED_ROUTES = 10_000;

/** What delegation reads of a route (VirtualService's or RouteTable's). */
export type DelegatingRouteSpec = Pick<
  RouteSpec,
  | 'matchers'
  | 'inheritableMatchers'
  | 'inheritablePathMatchers'
  | 'delegateAction'
  | 'options'
  | 'optionsConfigRefs'
  | 'name'
>;

/** One option of a delegating route that a delegated route takes, with where it is written. */
export type InheritedOption = SourcedOption<keyof RouteOptionsSpec>;

/** A route of the virtual host after delegation: no delegateAction, written at `path` of `owner`. */
export interface PlacedRoute<R> {
  route: R;
  owner: Resource;
  path: FieldPath;
  /** Its matchers after inheritance; undefined after an error was reported. */
  matches: RouteMatchIR[] | undefined;
  /** Options of the routes that delegated to it, for the keys it does not set. */
  inherited: InheritedOption[];
  /** Options of the RouteOptions its optionsConfigRefs name, for the keys it does not set. */
  delegated: InheritedOption[];
  /** The `name`s set on it and on the routes that delegated to it, outermost first. */
  names: string[];
}

/** The delegating route, as its delegated routes see it. */
interface Parent {
  match: RouteMatchIR;
  owner: Resource;
  /** Where its matcher is written (the route, when it has none). */
  matcherPath: FieldPath;
  inheritableMatchers: boolean;
  inheritablePathMatchers: boolean;
  /** Its options, own and inherited. */
  options: InheritedOption[];
  /** Its name and those of the routes that delegated to it. */
  names: string[];
}

/**
 * A virtual host's routes with every delegation inlined, and the RouteTables
 * reached. Errors and warnings go to `diagnostics`, at the field that causes them.
 */
export function expandDelegation<R extends DelegatingRouteSpec>(
  root: Resource,
  routes: R[],
  base: FieldPath,
  lookups: Lookups,
  diagnostics: Diagnostic[],
): { routes: PlacedRoute<R>[]; reached: Resource[] } {
  const reached = new Set<Resource>();
  let inlined = 0;
  let tooMany = false;
  const visit = (
    owner: Resource,
    list: R[],
    at: FieldPath,
    parent: Parent | undefined,
    chain: Resource[],
  ): PlacedRoute<R>[] => {
    const out: PlacedRoute<R>[] = [];
    list.forEach((route, i) => {
      const path = [...at, i];
      const inheritableMatchers = route.inheritableMatchers ?? parent?.inheritableMatchers ?? false;
      const inheritablePathMatchers = route.inheritablePathMatchers ?? parent?.inheritablePathMatchers ?? false;
      if (!parent && !route.delegateAction) {
        for (const field of ['inheritableMatchers', 'inheritablePathMatchers'] as const) {
          if (route[field] !== undefined)
            diagnostics.push(
              fieldError(
                'resolve',
                owner.origin,
                [...path, field],
                `${field} applies to the routes a delegateAction inlines, and this route has none`,
                `remove ${field}, or set it on a route with delegateAction`,
              ),
            );
        }
      }
      const own = resolveMatchers(route.matchers, [...path, 'matchers'], owner.origin, diagnostics);
      const matches =
        own && parent
          ? inherit(own, (route.matchers ?? []).length > 0, parent, inheritableMatchers, inheritablePathMatchers)
          : own;
      if (matches && parent) checkAgainstParent(matches, route, owner, path, parent, diagnostics);
      // Gloo merges a route's RouteOptions into its options before its parent's: they come between the two.
      const written = ownOptions(route.options, owner, [...path, 'options']) as InheritedOption[];
      const delegated = delegatedOptions(
        'RouteOption',
        route.optionsConfigRefs,
        [...path, 'optionsConfigRefs'],
        owner,
        written,
        lookups,
        diagnostics,
      ) as InheritedOption[];
      const inherited = parent ? parent.options.filter((o) => !takes(written, o.key) && !takes(delegated, o.key)) : [];
      const names = [...(parent?.names ?? []), ...(route.name ? [route.name] : [])];
      if (!route.delegateAction) {
        if (parent) inlined++;
        out.push({ route, owner, path, matches, inherited, delegated, names });
        return;
      }
      const actionPath = [...path, 'delegateAction'];
      const match = matches && delegatedMatch(matches, route, owner, path, diagnostics);
      const tables = select(route.delegateAction, owner, actionPath, lookups, diagnostics);
      if (!match || !tables) return;
      const next: Parent = {
        match,
        owner,
        matcherPath: (route.matchers ?? []).length > 0 ? [...path, 'matchers', 0] : path,
        inheritableMatchers,
        inheritablePathMatchers,
        options: [...written, ...delegated, ...inherited],
        names,
      };
      // Gloo: ascending weight (unset: 0); a selector's tables come by namespace, then name.
      const byWeight = new Map<number, Resource[]>();
      for (const table of tables) {
        const weight = (table.spec as { weight?: number }).weight ?? 0;
        byWeight.set(weight, [...(byWeight.get(weight) ?? []), table]);
      }
      for (const weight of [...byWeight.keys()].sort((a, b) => a - b)) {
        const group: PlacedRoute<R>[] = [];
        for (const table of byWeight.get(weight)!) {
          reached.add(table);
          const cycle = chain.indexOf(table);
          if (cycle !== -1) {
            const names = [...chain.slice(cycle), table].map((t) => `RouteTable ${t.namespace}/${t.name}`).join(' -> ');
            diagnostics.push(
              fieldError(
                'resolve',
                owner.origin,
                actionPath,
                `delegation cycle: ${names}`,
                'remove the delegateAction that closes the cycle',
              ),
            );
            continue;
          }
          if (inlined > MAX_DELEGATED_ROUTES) {
            if (!tooMany)
              diagnostics.push(
                fieldError(
                  'resolve',
                  owner.origin,
                  actionPath,
                  `delegation inlines more than ${MAX_DELEGATED_ROUTES} routes into VirtualService ${root.namespace}/${root.name}`,
                  'narrow the selectors: tables whose routes select each other multiply their routes at every level',
                ),
              );
            tooMany = true;
            continue;
          }
          if (chain.length >= MAX_DELEGATION_DEPTH) {
            const names = [root, ...chain, table].map((t) => `${t.kind} ${t.namespace}/${t.name}`).join(' -> ');
            diagnostics.push(
              fieldError(
                'resolve',
                owner.origin,
                actionPath,
                `delegation nests more than ${MAX_DELEGATION_DEPTH} RouteTables deep: ${names}`,
                `write the routes in fewer levels (at most ${MAX_DELEGATION_DEPTH} RouteTables under a VirtualService)`,
              ),
            );
            continue;
          }
          group.push(
            ...visit(table, ((table.spec as { routes?: R[] }).routes ?? []) as R[], ['spec', 'routes'], next, [
              ...chain,
              table,
            ]),
          );
        }
        const tied = byWeight.get(weight)!;
        if (tied.length > 1) {
          // Gloo sorts the routes of equally weighted tables so that a broad route does not hide a narrower one.
          group.sort((a, b) => compareSpecificity(smallest(a.matches), smallest(b.matches)));
          const names = tied.map((t) => `${t.namespace}/${t.name}`).join(', ');
          diagnostics.push(
            asWarning(
              fieldError(
                'resolve',
                owner.origin,
                actionPath,
                `RouteTables ${names} have the same weight (${weight}), so their routes are sorted by path specificity (as Gloo does), not kept in the order written`,
                'give each RouteTable a distinct spec.weight (lower comes first)',
              ),
            ),
          );
        }
        out.push(...group);
      }
    });
    return out;
  };
  const placed = visit(root, routes, base, undefined, []);
  // Past the bound the compile fails: resolving the routes would only cost time.
  return { routes: tooMany ? [] : placed, reached: [...reached] };
}

/** Gloo's inheritance: the parent's path (and case sensitivity), then its headers, query parameters and methods before the child's. */
function inherit(
  own: RouteMatchIR[],
  written: boolean,
  parent: Parent,
  matchers: boolean,
  path: boolean,
): RouteMatchIR[] {
  let out = own;
  if (path) {
    const from = { path: parent.match.path, caseSensitive: parent.match.caseSensitive };
    out = written ? own.map((m) => ({ ...m, ...from })) : [{ ...from, headers: [], queryParameters: [], methods: [] }];
  }
  if (matchers) {
    out = out.map((m) => ({
      ...m,
      headers: [...parent.match.headers, ...m.headers],
      queryParameters: [...parent.match.queryParameters, ...m.queryParameters],
      methods: [...new Set([...parent.match.methods, ...m.methods])],
    }));
  }
  return out;
}

/** Gloo's check that a delegated route matches only requests its parent's matcher matches; an error per matcher that does not. */
function checkAgainstParent(
  matches: RouteMatchIR[],
  route: DelegatingRouteSpec,
  owner: Resource,
  path: FieldPath,
  parent: Parent,
  diagnostics: Diagnostic[],
): void {
  const prefix = parent.match.path.value;
  matches.forEach((m, j) => {
    // Only when there is a problem to report: finding a line parses the document again (and keeps its positions).
    const parentAt = () => `${parent.owner.origin.resource} at ${placeOf(parent.owner.origin, parent.matcherPath)}`;
    const at = (route.matchers ?? []).length > 0 ? [...path, 'matchers', j] : path;
    const problem = !m.path.value.startsWith(prefix)
      ? [
          `path ${quote(m.path.value)} does not start with ${quote(prefix)}, the prefix delegated by ${parentAt()}`,
          `start the path with ${quote(prefix)} (a RouteTable serves only what it is delegated), or set inheritablePathMatchers`,
        ]
      : m.caseSensitive !== parent.match.caseSensitive
        ? [
            `caseSensitive is ${m.caseSensitive}, and the delegating matcher (${parentAt()}) has ${parent.match.caseSensitive}`,
            'set the same caseSensitive as the delegating matcher',
          ]
        : !parent.match.headers.every((h) => m.headers.some((c) => same(c, h)))
          ? [
              `the matcher lacks headers the delegating matcher (${parentAt()}) requires`,
              "repeat the delegating matcher's headers here, or set inheritableMatchers on the delegating route",
            ]
          : !parent.match.queryParameters.every((q) => m.queryParameters.some((c) => same(c, q)))
            ? [
                `the matcher lacks query parameters the delegating matcher (${parentAt()}) requires`,
                "repeat the delegating matcher's queryParameters here, or set inheritableMatchers on the delegating route",
              ]
            : !parent.match.methods.every((x) => m.methods.includes(x))
              ? [
                  `the matcher lacks methods the delegating matcher (${parentAt()}) requires (${parent.match.methods.join(', ')})`,
                  "repeat the delegating matcher's methods here, or set inheritableMatchers on the delegating route",
                ]
              : undefined;
    if (problem) diagnostics.push(fieldError('resolve', owner.origin, at, problem[0]!, problem[1]));
  });
}

/** The matcher a delegating route hands down: Gloo's rule is one prefix matcher (none: "/"). */
function delegatedMatch(
  matches: RouteMatchIR[],
  route: DelegatingRouteSpec,
  owner: Resource,
  path: FieldPath,
  diagnostics: Diagnostic[],
): RouteMatchIR | undefined {
  if (matches.length > 1) {
    diagnostics.push(
      fieldError(
        'resolve',
        owner.origin,
        [...path, 'matchers', 1],
        `a route with delegateAction has one matcher (or none), and this one has ${matches.length}`,
        'write one delegating route per prefix',
      ),
    );
    return undefined;
  }
  const match = matches[0]!;
  if (match.path.kind !== 'prefix') {
    const written = (route.matchers ?? []).length > 0 && route.matchers![0]![match.path.kind] !== undefined;
    diagnostics.push(
      fieldError(
        'resolve',
        owner.origin,
        written ? [...path, 'matchers', 0, match.path.kind] : path,
        `a route with delegateAction must match a path prefix, and this one matches ${match.path.kind} ${quote(match.path.value)}`,
        "delegate a prefix (the RouteTable's routes may then match exact paths or regexes under it)",
      ),
    );
    return undefined;
  }
  return match;
}

/** The RouteTables a delegateAction names, in namespace/name order; undefined after reporting there are none. */
function select(
  action: DelegateActionSpec,
  owner: Resource,
  at: FieldPath,
  lookups: Lookups,
  diagnostics: Diagnostic[],
): Resource[] | undefined {
  if (action.name !== undefined || action.ref) {
    const raw = action.ref ?? {
      name: action.name!,
      ...(action.namespace !== undefined ? { namespace: action.namespace } : {}),
    };
    const ref = refOf(raw, owner);
    const table = lookups.resource('RouteTable', ref);
    if (table) return [table];
    diagnostics.push(
      notFound(
        fieldError(
          'resolve',
          owner.origin,
          [...at, action.ref ? 'ref' : 'name'],
          `RouteTable ${showRef(ref)} not found`,
          'define the RouteTable (gateway.gateway.example/v1) or fix the reference',
        ),
        `RouteTable ${showRef(ref)}`,
      ),
    );
    return undefined;
  }
  const selector = action.selector!;
  const namespaces = selector.namespaces ?? [];
  const inNamespace = namespaces.includes('*')
    ? () => true
    : (ns: string) => (namespaces.length > 0 ? namespaces : [owner.namespace]).includes(ns);
  const labels = Object.entries(selector.labels ?? {});
  const expressions = selector.expressions ?? [];
  if (!checkExpressions(expressions, owner.origin, [...at, 'selector', 'expressions'], diagnostics)) return undefined;
  const tables = lookups
    .all('RouteTable')
    .filter((t) => inNamespace(t.namespace) && matchesLabels(labelsOf(t), selector.labels, selector.expressions));
  if (tables.length > 0) return tables;
  const where = namespaces.includes('*')
    ? 'any namespace'
    : `namespace ${(namespaces.length > 0 ? namespaces : [owner.namespace]).join(', ')}`;
  diagnostics.push(
    asWarning(
      fieldError(
        'resolve',
        owner.origin,
        [...at, 'selector'],
        `the selector matches no RouteTable in ${where}, so this route adds no routes`,
        labels.length > 0
          ? `label a RouteTable ${labels.map(([k, v]) => `${k}: ${v}`).join(', ')}, or fix the selector`
          : expressions.length > 0
            ? 'label a RouteTable to satisfy the expressions, or fix them'
            : 'define a RouteTable there, or fix the selector',
      ),
    ),
  );
  return undefined;
}

/**
 * A route's options: its own, those of the RouteOptions it names, and the
 * inherited ones that can act on its action (a redirect takes no timeout),
 * each resolved where it is written. A RouteOption's option that cannot act
 * on the route is an error, as it is written inline.
 */
export function withInherited(
  own: { ok: boolean; options?: RouteOptionsIR },
  inherited: InheritedOption[],
  action: RouteActionField,
  resolveAt: (spec: RouteOptionsSpec, path: FieldPath, owner: Resource) => { ok: boolean; options?: RouteOptionsIR },
  delegated: InheritedOption[] = [],
): { ok: boolean; options?: RouteOptionsIR } {
  let ok = own.ok;
  const options: RouteOptionsIR = {};
  for (const group of byOwner([...delegated, ...inherited.filter((o) => optionApplies(o.key, action))])) {
    const resolved = resolveAt(group.spec as RouteOptionsSpec, group.path, group.owner);
    ok &&= resolved.ok;
    Object.assign(options, resolved.options);
  }
  Object.assign(options, own.options);
  if (!ok) return { ok: false };
  return Object.keys(options).length > 0 ? { ok: true, options } : { ok: true };
}

/** The matcher Gloo sorts a route by: its most specific one. */
function smallest(matches: RouteMatchIR[] | undefined): RouteMatchIR {
  const all = matches ?? [];
  return all.reduce(
    (a, b) => (compareSpecificity(b, a) < 0 ? b : a),
    all[0] ?? {
      path: { kind: 'prefix', value: '/' },
      caseSensitive: true,
      headers: [],
      queryParameters: [],
      methods: [],
    },
  );
}

const PATH_PRIORITY = { exact: 1, regex: 2, prefix: 3 } as const;

/** Gloo's SortRoutesByPath order: more methods first, then exact, regex, prefix, then the greater path text. */
function compareSpecificity(a: RouteMatchIR, b: RouteMatchIR): number {
  if (a.methods.length !== b.methods.length) return b.methods.length - a.methods.length;
  if (a.path.kind !== b.path.kind) return PATH_PRIORITY[a.path.kind] - PATH_PRIORITY[b.path.kind];
  return a.path.value === b.path.value ? 0 : a.path.value > b.path.value ? -1 : 1;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
