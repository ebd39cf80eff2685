/**
 * Make before break, per client, as Envoy's xDS protocol asks of a server
 * ("eventual consistency considerations"): a listener or route configuration
 * that names a cluster goes out only once the client has ACKed that cluster,
 * in the version about to be served, and, for an EDS cluster, its endpoints; a cluster and its endpoints leave
 * the client only once no listener or route configuration it holds, or is
 * being sent, names them. Until then the client keeps the version it has.
 */
import { TYPE_URL } from '../../contract/names.js';
import { decodeMessage } from '../../contract/codec.js';
import { namedClusters } from '../../compiler/translate/references.js';
import type { Resource, Snapshot } from '../cache/snapshot.js';

/** Types whose resources name clusters (an HTTP filter served over ECDS names its sidecar). */
export const REFERRING_TYPES: ReadonlySet<string> = new Set([
  TYPE_URL.listener,
  TYPE_URL.route,
  TYPE_URL.virtualHost,
  TYPE_URL.extensionConfig,
]);
/** Types a referring resource needs: a cluster, and the endpoints named after it. */
export const REFERRED_TYPES: ReadonlySet<string> = new Set([TYPE_URL.cluster, TYPE_URL.endpoint]);

const refsCache = new WeakMap<Resource, readonly string[]>();

/**
 * The clusters a listener, route configuration or virtual host names: `cluster` (routes,
 * tcp_proxy, http_uri), `cluster_name` (envoy_grpc), weighted clusters.
 * Read from the encoded bytes (typed configs included), once per resource.
 */
export function clusterRefs(typeUrl: string, resource: Resource): readonly string[] {
  if (!REFERRING_TYPES.has(typeUrl)) return [];
  // The snapshot encoder gives them from the JSON, kept per virtual host: no decode of a large route configuration per edit.
  let refs = resource.clusterRefs ?? refsCache.get(resource);
  if (!refs) {
    refs = [...namedClusters(decodeMessage(typeUrl, resource.value))];
    refsCache.set(resource, refs);
  }
  return refs;
}

/** What a client holds of one type: the resources of the last response it ACKed, and of the one in flight. */
export interface Held {
  sent?: HeldSet;
  acked?: HeldSet;
}

type HeldSet = ReadonlyMap<string, Resource | undefined>;

const setRefs = new WeakMap<HeldSet, ReadonlySet<string>>();

/** The clusters the resources of one held set name, once per set: clients that hold the same snapshot's map (SotW, VHDS) share it, and 10,000 virtual hosts are read once, not once per client. */
function refsOfSet(typeUrl: string, set: HeldSet): ReadonlySet<string> {
  let refs = setRefs.get(set);
  if (!refs) {
    const names = new Set<string>();
    for (const r of set.values()) if (r) for (const c of clusterRefs(typeUrl, r)) names.add(c);
    setRefs.set(set, (refs = names));
  }
  return refs;
}

/**
 * The clusters named by what a client holds of the referring types, or is
 * being sent: they stay in its CDS and EDS. Recomputed only when one of the
 * held sets changes.
 */
export class HeldRefs {
  private key: unknown[] = [];
  private refs: ReadonlySet<string> = new Set();

  of(held: (typeUrl: string) => Held | undefined): ReadonlySet<string> {
    const sets = [...REFERRING_TYPES].flatMap((t) => {
      const h = held(t);
      return [h?.sent, h?.acked].map((set) => [t, set] as const);
    });
    if (sets.length === this.key.length && sets.every(([, set], i) => set === this.key[i])) return this.refs;
    const refs = new Set<string>();
    // Sent and ACKed are mostly the same map: each map is read once.
    const seen = new Set<HeldSet>();
    for (const [typeUrl, set] of sets) {
      if (!set || seen.has(set)) continue;
      seen.add(set);
      for (const c of refsOfSet(typeUrl, set)) refs.add(c);
    }
    this.key = sets.map(([, set]) => set);
    this.refs = refs;
    return refs;
  }
}

/**
 * Whether `resource` names a cluster of `snapshot` the client does not hold
 * yet in the snapshot's version, or whose endpoints (an EDS cluster) it does
 * not hold yet. `holds` answers for CDS (that version ACKed) and EDS (some
 * version ACKed), or when the client does not subscribe to that name.
 */
export function waitsForClusters(
  typeUrl: string,
  resource: Resource,
  snapshot: Snapshot,
  holds: (typeUrl: string, name: string, version?: string) => boolean,
): boolean {
  const clusters = snapshot.type(TYPE_URL.cluster)?.resources;
  const endpoints = snapshot.type(TYPE_URL.endpoint)?.resources;
  // A name that is no cluster of the snapshot (a defect elsewhere) must not hold the push back forever.
  return clusterRefs(typeUrl, resource).some(
    (c) =>
      (clusters?.has(c) && !holds(TYPE_URL.cluster, c, clusters.get(c)!.version)) ||
      (endpoints?.has(c) && !holds(TYPE_URL.endpoint, c)),
  );
}
