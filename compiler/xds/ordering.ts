/**
 * Make before break, per client, as Envoy's xDS protocol asks of a server
 * ("eventual consistency considerations"): a listener or route configuration
 * that names a cluster goes out only once the client has ACKed that cluster,
 * in the version about to be served, and, for an EDS cluster, its endpoints; a cluster and its endpoints leave
 * the client only once no listener or route configuration it holds, or is
 * being sent, names them. Until then the client keeps the version it has.
 */
import { TYPE_URL } from '../../protos/contract.js';
import { decodeMessage } from '../../protos/codec.js';
import { namedClusters } from '../translate/references.js';
import type { Resource, Snapshot } from './snapshot.js';

/** Types whose resources name clusters (an HTTP filter served over ECDS names its sidecar). */
export const REFERRING_TYPES: ReadonlySet<string> = new Set([TYPE_URL.listener, TYPE_URL.route, TYPE_URL.virtualHost, TYPE_URL.extensionConfig]);
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
  sent?: ReadonlyMap<string, Resource | undefined>;
  acked?: ReadonlyMap<string, Resource | undefined>;
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
    // Sent and ACKed are mostly the same resources: each is read once.
    const seen = new Set<Resource>();
    for (const [typeUrl, set] of sets)
      for (const r of set?.values() ?? []) {
        if (!r || seen.has(r)) continue;
        seen.add(r);
        for (const c of clusterRefs(typeUrl, r)) refs.add(c);
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
    (c) => (clusters?.has(c) && !holds(TYPE_URL.cluster, c, clusters.get(c)!.version)) || (endpoints?.has(c) && !holds(TYPE_URL.endpoint, c)),
  );
}
