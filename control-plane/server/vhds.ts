/**
 * VHDS (serve --vhds, delta only): a route configuration's virtual hosts,
 * served one by one as `<route configuration>/<virtual host>`. A route
 * configuration's name subscribes to all its virtual hosts;
 * `<route configuration>/<host>` asks for the one that host selects, as
 * Envoy's domain matching would (answered with the request as alias, or
 * empty). What a client holds is tracked as a selection shared by the
 * clients that subscribe alike, so an edit costs one diff for all of them.
 */
import { findVirtualHost } from '../../compiler/envoy/match.js';
import { TYPE_URL } from '../../contract/names.js';
import type { Resource, TypeSnapshot } from '../cache/snapshot.js';
import { encodeDeltaEntry } from './wire.js';

/** What takes a client from one set of virtual hosts to another. */
export interface HostDiff {
  changed: Resource[];
  removed: string[];
}

export const NO_DIFF: HostDiff = { changed: [], removed: [] };

/** What a new client holds; one map shared by all, so their first syncs are one diff (hostDiff). */
export const NOTHING_HELD: ReadonlyMap<string, Resource | undefined> = new Map();

/**
 * The answers to on-demand VHDS requests (`<route configuration>/<host>`):
 * for each virtual host they select (as Envoy's domain matching would), one
 * entry with those aliases; for each alias no host matches, an entry named
 * after it with no resource, which tells Envoy the host is unknown.
 */
export function aliasEntries(
  aliases: readonly string[],
  type: TypeSnapshot,
): { entries: Uint8Array[]; names: Set<string> } {
  const found = new Map<Resource, string[]>();
  const entries: Uint8Array[] = [];
  for (const alias of aliases) {
    const slash = alias.lastIndexOf('/');
    const candidates = [...(routeConfigHosts(type).get(alias.slice(0, slash))?.values() ?? [])].map((r) => ({
      domains: r.domains ?? [],
      r,
    }));
    const r = findVirtualHost(candidates, alias.slice(slash + 1)).vh?.r;
    if (!r) entries.push(encodeDeltaEntry({ name: alias, aliases: [alias] }));
    else found.set(r, [...(found.get(r) ?? []), alias]);
  }
  for (const [r, names] of found)
    entries.push(
      encodeDeltaEntry({
        name: r.name,
        version: r.version,
        aliases: names,
        resource: { type_url: TYPE_URL.virtualHost, value: r.value },
      }),
    );
  return { entries, names: new Set([...found.keys()].map((r) => r.name)) };
}

const routeConfigHostsMemo = new WeakMap<TypeSnapshot, Map<string, Map<string, Resource>>>();

/** A VHDS type's virtual hosts by route configuration (`<route configuration>/<virtual host>`), once per type snapshot. */
function routeConfigHosts(type: TypeSnapshot): Map<string, Map<string, Resource>> {
  let groups = routeConfigHostsMemo.get(type);
  if (!groups) {
    groups = new Map();
    for (const [name, r] of type.resources) {
      const routeConfig = name.slice(0, name.lastIndexOf('/'));
      let group = groups.get(routeConfig);
      if (!group) groups.set(routeConfig, (group = new Map()));
      group.set(name, r);
    }
    routeConfigHostsMemo.set(type, groups);
  }
  return groups;
}

const selectionMemo = new WeakMap<TypeSnapshot, Map<string, ReadonlyMap<string, Resource>>>();

/**
 * The virtual hosts of the route configurations `namespaces`, as one map
 * shared by every client that subscribes to the same ones: the type's own
 * when they are all of them (an Envoy with every listener).
 */
export function vhdsSelection(type: TypeSnapshot, namespaces: ReadonlySet<string>): ReadonlyMap<string, Resource> {
  const groups = routeConfigHosts(type);
  // Asked on every request of every client: no array is built for it.
  let all = true;
  for (const rc of groups.keys()) if (!namespaces.has(rc)) all = false;
  if (all) return type.resources;
  const key = [...namespaces].sort().join('\n');
  let memo = selectionMemo.get(type);
  if (!memo) selectionMemo.set(type, (memo = new Map()));
  let selection = memo.get(key);
  if (!selection) memo.set(key, (selection = new Map([...namespaces].flatMap((ns) => [...(groups.get(ns) ?? [])]))));
  return selection;
}

const firstSyncMemo = new WeakMap<ReadonlyMap<string, Resource>, HostDiff>();
const diffMemo = new WeakMap<
  ReadonlyMap<string, Resource | undefined>,
  { to: ReadonlyMap<string, Resource>; diff: HostDiff }
>();

/** What takes a client from the virtual hosts `from` to `to`: computed once for all the clients that make the same step. */
export function hostDiff(from: ReadonlyMap<string, Resource | undefined>, to: ReadonlyMap<string, Resource>): HostDiff {
  // A new client's first sync: everything, kept by `to` (NOTHING_HELD lives for good and would hold an old snapshot's hosts).
  if (from === NOTHING_HELD) {
    let everything = firstSyncMemo.get(to);
    if (!everything) firstSyncMemo.set(to, (everything = { changed: [...to.values()], removed: [] }));
    return everything;
  }
  const memo = diffMemo.get(from);
  if (memo?.to === to) return memo.diff;
  const diff: HostDiff = { changed: [], removed: [] };
  for (const [name, r] of to) if (from.get(name)?.version !== r.version) diff.changed.push(r);
  for (const name of from.keys()) if (!to.has(name)) diff.removed.push(name);
  diffMemo.set(from, { to, diff });
  return diff;
}
