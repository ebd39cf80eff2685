/**
 * optionsConfigRefs: the options a virtual host or route takes from the
 * VirtualHostOption or RouteOption resources it names, merged as Gloo merges
 * them (ShallowMergeVirtualHostOptions / ShallowMergeRouteOptions): per
 * top-level option, the one written inline wins, then the first resource
 * listed that sets it; an empty list counts as unset, and the members of one
 * of Gloo's oneofs count as one option. Each option keeps the resource that
 * wrote it: problems are reported there, and references in it default to its
 * namespace.
 */
import { fieldError, notFound, type Diagnostic, type FieldPath } from '../diagnostics.js';
import type { OptionsConfigRefsSpec } from '../kinds/option-resources.js';
import type { Resource } from '../validate/validate.js';
import { refOf, showRef } from './index.js';
import type { Lookups } from './lookups.js';

/** One top-level option, with the resource that wrote it and the path of the `options` object it is in. */
export interface SourcedOption<K extends string = string> {
  key: K;
  value: unknown;
  owner: Resource;
  path: FieldPath;
}

/**
 * Options that replace each other as one: Gloo's oneofs (host rewrites, JWT
 * configs, rate limit configs), and the path rewrites, which Envoy takes one of.
 */
const OPTION_GROUP: Readonly<Record<string, string>> = {
  autoHostRewrite: 'hostRewrite',
  hostRewritePathRegex: 'hostRewrite',
  hostRewriteHeader: 'hostRewrite',
  regexRewrite: 'prefixRewrite',
  jwtStaged: 'jwt',
  jwtProvidersStaged: 'jwt',
  rateLimitEarlyConfigs: 'ratelimitEarly',
  rateLimitConfigs: 'ratelimit',
  rateLimitRegularConfigs: 'ratelimitRegular',
};
export const optionGroup = (key: string): string => OPTION_GROUP[key] ?? key;

/** Whether Gloo's merge counts the value as set: present, and not an empty list. */
export const isSet = (value: unknown): boolean => value !== undefined && !(Array.isArray(value) && value.length === 0);

/** The top-level options `options` sets, with their owner. */
export function ownOptions(options: object | undefined, owner: Resource, path: FieldPath): SourcedOption[] {
  return Object.entries(options ?? {})
    .filter(([, value]) => isSet(value))
    .map(([key, value]) => ({ key, value, owner, path }));
}

/** Whether one of `options` fills the place of `key`. */
export const takes = (options: readonly SourcedOption[], key: string): boolean =>
  options.some((o) => optionGroup(o.key) === optionGroup(key));

/**
 * The options the resources `refs` names add to `inline`, in the order
 * listed, each where it is written; a name that finds no resource is an
 * error at its entry.
 */
export function delegatedOptions(
  kind: 'VirtualHostOption' | 'RouteOption',
  refs: OptionsConfigRefsSpec | undefined,
  refsPath: FieldPath,
  holder: Resource,
  inline: readonly SourcedOption[],
  lookups: Lookups,
  diagnostics: Diagnostic[],
): SourcedOption[] {
  const taken: SourcedOption[] = [];
  (refs?.delegateOptions ?? []).forEach((raw, i) => {
    const ref = refOf(raw, holder);
    const found = lookups.resource(kind, ref);
    if (!found) {
      diagnostics.push(
        notFound(
          fieldError(
            'resolve',
            holder.origin,
            [...refsPath, 'delegateOptions', i],
            `${kind} ${showRef(ref)} not found`,
            `define the ${kind} (gateway.gateway.example/v1) or remove the reference`,
          ),
          `${kind} ${showRef(ref)}`,
        ),
      );
      return;
    }
    const options = (found.spec as { options?: object }).options;
    for (const option of ownOptions(options, found, ['spec', 'options']))
      if (!takes(inline, option.key) && !takes(taken, option.key)) taken.push(option);
  });
  return taken;
}

/** Options grouped by the `options` object they are written in, each group as a spec of its own. */
export function byOwner(
  options: readonly SourcedOption[],
): { spec: Record<string, unknown>; owner: Resource; path: FieldPath }[] {
  const groups = new Map<Resource, Map<string, { spec: Record<string, unknown>; owner: Resource; path: FieldPath }>>();
  for (const o of options) {
    let paths = groups.get(o.owner);
    if (!paths) groups.set(o.owner, (paths = new Map()));
    const at = o.path.join('\u0000');
    const group = paths.get(at) ?? { spec: {}, owner: o.owner, path: o.path };
    group.spec[o.key] = o.value;
    paths.set(at, group);
  }
  return [...groups.values()].flatMap((paths) => [...paths.values()]);
}
