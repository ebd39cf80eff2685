/**
 * State-of-the-world streams (StreamAggregatedResources, Stream<Type>): per
 * type, the whole selection in each response. A request whose
 * response_nonce is not the latest one sent for its type is stale and
 * ignored; a type is answered only after a request for it (one response in
 * flight per type), and a request whose version_info is the current version
 * (with the same names) is held until the snapshot changes.
 */
import { createHash } from 'node:crypto';
import { TYPE_URL } from '../../contract/names.js';
import {
  sotwBody as encodeSotwBody,
  WILDCARD_TYPES,
  type Resource,
  type Snapshot,
  type TypeSnapshot,
} from '../cache/snapshot.js';
import { REFERRED_TYPES, REFERRING_TYPES, type Held } from './ordering.js';
import { AdsStream } from './stream.js';
import type { EncodedResponse, Request } from './wire.js';

interface SotwTypeState {
  names: string[];
  wildcard: boolean;
  /** namesKey of `names` and `wildcard`: made once per request that changes them (thousands of EDS names are sorted once, not per push). */
  key: string;
  /** Nonce of the last response; requests carrying another one are stale. */
  nonce?: string;
  sentVersion?: string;
  sentNamesKey?: string;
  /** The resources of the last response, and of the last one ACKed (make before break reads both). */
  sent?: ReadonlyMap<string, Resource>;
  acked?: ReadonlyMap<string, Resource>;
  /** version_info of the latest request: what the client has applied. */
  clientVersion: string;
  /** A request is waiting for a response: the one response in flight per type was answered. */
  watchOpen: boolean;
}

export class SotwStream extends AdsStream<SotwTypeState, Request, EncodedResponse> {
  readonly protocol = 'sotw' as const;

  protected onRequest(req: Request): void {
    this.adoptNode(req.node);
    const typeUrl = req.type_url;
    if (!typeUrl) return;
    let st = this.types.get(typeUrl);
    const first = !st;
    if (st && req.response_nonce !== (st.nonce ?? '')) {
      // An answer to a response that has since been superseded (or never sent); an empty nonce before any response is a new subscription.
      this.stale(typeUrl, req.response_nonce);
      this.processed(typeUrl);
      return;
    }
    if (st && req.response_nonce) {
      if (req.error_detail) this.nacked(typeUrl, st.sentVersion ?? '', versionsOf(st.sent), req.error_detail);
      else {
        if (typeUrl === TYPE_URL.cluster) this.clustersReplaced(st.acked, st.sent);
        st.acked = st.sent;
        this.acked(typeUrl, req.version_info);
      }
    }
    const names = req.resource_names.filter((n) => n !== '*');
    const wildcard =
      req.resource_names.includes('*') || (req.resource_names.length === 0 && WILDCARD_TYPES.has(typeUrl));
    const sameNames = st !== undefined && st.wildcard === wildcard && sameItems(st.names, names);
    st ??= { names, wildcard, key: '', clientVersion: '', watchOpen: false };
    if (!sameNames) {
      st.key = namesKey(names, wildcard);
      // Names no longer asked for are dropped by the client (Envoy forgets the endpoints of a cluster it no longer has).
      const asked = new Set(names);
      if (!wildcard && st.acked && [...st.acked.keys()].some((n) => !asked.has(n)))
        st.acked = new Map([...st.acked].filter(([n]) => asked.has(n)));
    }
    st.names = names;
    st.wildcard = wildcard;
    st.clientVersion = req.version_info;
    const snapshot = this.snapshot();
    if (first && req.version_info) {
      // A reconnecting client that already has a version has it for the names it asks for, and holds its resources if it is the current one.
      st.sentNamesKey = st.key;
      const type = snapshot?.type(typeUrl);
      if (type?.version === req.version_info) st.sent = st.acked = selected(st, type);
    }
    if (first && typeUrl === TYPE_URL.route && (snapshot?.type(TYPE_URL.virtualHost)?.resources.size ?? 0) > 0)
      this.host.logger?.warn(
        { node: this.nodeId() },
        'serve --vhds: this Envoy asks for routes over state-of-the-world xDS, and Envoy takes VHDS over delta xDS only; it will reject the route configurations (bootstrap it with sluice bootstrap --delta)',
      );
    st.watchOpen = true;
    this.types.set(typeUrl, st);
    // An ACK may let another type go: routes waiting for their clusters, clusters kept for the routes the client held.
    this.pushAll();
    this.processed(typeUrl);
  }

  protected held(typeUrl: string): Held | undefined {
    return this.types.get(typeUrl);
  }

  protected holds(typeUrl: string, name: string, version?: string): boolean {
    const st = this.types.get(typeUrl);
    if (!st || (typeUrl === TYPE_URL.cluster && !(st.wildcard || st.names.includes(name)))) return true;
    // ACKed, and not taken away (nor, for a cluster, changed) by the response in flight; new endpoints for a cluster keep it usable.
    const acked = st.acked?.get(name);
    if (!acked || (version !== undefined && acked.version !== version)) return false;
    if (st.watchOpen) return true;
    return typeUrl === TYPE_URL.cluster ? st.sent?.get(name)?.version === acked.version : (st.sent?.has(name) ?? false);
  }

  /** Per type: the last answer of holdsAll, for the ACKed set and the snapshot's resources it was computed from. */
  private readonly heldAll = new Map<
    string,
    { acked: ReadonlyMap<string, Resource>; resources: ReadonlyMap<string, Resource>; all: boolean }
  >();

  protected holdsAll(typeUrl: string, snapshot: Snapshot): boolean {
    const st = this.types.get(typeUrl);
    const resources = snapshot.type(typeUrl)?.resources;
    if (!st || !resources) return true;
    // A response in flight may change what the client holds: unsure.
    if (!st.watchOpen || !st.acked) return false;
    const acked = st.acked;
    if (acked === resources) return true;
    const memo = this.heldAll.get(typeUrl);
    if (memo?.acked === acked && memo.resources === resources) return memo.all;
    let all = true;
    for (const [name, r] of resources) {
      const a = acked.get(name);
      if (!a || (typeUrl === TYPE_URL.cluster && a.version !== r.version)) {
        all = false;
        break;
      }
    }
    this.heldAll.set(typeUrl, { acked, resources, all });
    return all;
  }

  protected push(typeUrl: string, snapshot: Snapshot): void {
    const st = this.types.get(typeUrl);
    const type = snapshot.type(typeUrl);
    if (!st || !st.watchOpen || !type || this.isClosed) return;
    const key = st.key;
    const kept = REFERRED_TYPES.has(typeUrl) ? this.kept(st, type) : [];
    // Clusters kept for the routes the client holds make a set of their own, with a version of its own.
    const version = kept.length ? keptVersion(type.version, kept) : type.version;
    if (version === st.clientVersion && key === st.sentNamesKey) return;
    if (this.host.cache.lastNack(this.nodeId(), typeUrl)?.version === version) return;
    let resources = selected(st, type);
    if (kept.length) resources = new Map([...resources, ...kept.map((r) => [r.name, r] as const)]);
    if (REFERRING_TYPES.has(typeUrl) && [...resources.values()].some((r) => this.waits(typeUrl, r, snapshot))) return;
    if (this.writeBlocked()) return;
    const body = kept.length
      ? encodeSotwBody(version, typeUrl, [...resources.values()])
      : sotwBody(snapshot, typeUrl, type, key, () => [...resources.values()]);
    const nonce = this.nextNonce();
    this.send({ body, nonce } satisfies EncodedResponse, body.length);
    st.nonce = nonce;
    st.sentVersion = version;
    st.sentNamesKey = key;
    st.sent = resources;
    st.watchOpen = false;
    this.pushed(typeUrl, version);
  }

  /**
   * A cluster the client replaced or dropped with the CDS it ACKed no longer
   * has its endpoints: Envoy asks again for them, and the request may have
   * crossed a response (stale, ignored). Routes naming it wait for its EDS
   * again, which is resent to be sure.
   */
  private clustersReplaced(
    before: ReadonlyMap<string, Resource> | undefined,
    after: ReadonlyMap<string, Resource> | undefined,
  ): void {
    const eds = this.types.get(TYPE_URL.endpoint);
    if (!eds?.acked || !before) return;
    const kept = [...eds.acked].filter(([name]) => after?.get(name)?.version === before.get(name)?.version);
    if (kept.length === eds.acked.size) return;
    eds.acked = new Map(kept);
    eds.clientVersion = '';
  }

  /** Clusters (or their endpoints) the client holds, gone from `type`, that held routes still name. */
  private kept(st: SotwTypeState, type: TypeSnapshot): Resource[] {
    // Nothing the client holds is gone: skip collecting the held listeners' and routes' cluster names (tens of thousands at scale, on every request).
    if (!goneFrom(type, st.sent) && !goneFrom(type, st.acked)) return [];
    const refs = this.heldRefs();
    if (refs.size === 0 || (!st.sent && !st.acked)) return [];
    const kept: Resource[] = [];
    for (const name of refs) {
      if (type.resources.has(name) || !(st.wildcard || st.names.includes(name))) continue;
      const old = st.sent?.get(name) ?? st.acked?.get(name);
      if (old) kept.push(old);
    }
    return kept.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}

/** Per type's resources: the selection of the last name set asked of them, shared by the clients asking for the same names. */
const selections = new WeakMap<
  ReadonlyMap<string, Resource>,
  { key: string; selection: ReadonlyMap<string, Resource> }
>();

/** The resources a SotW subscription selects from `type` (wildcard: the type's own map, not a copy). */
function selected(st: SotwTypeState, type: TypeSnapshot): ReadonlyMap<string, Resource> {
  if (st.wildcard) return type.resources;
  const memo = selections.get(type.resources);
  if (memo?.key === st.key) return memo.selection;
  const selection = new Map(
    [...new Set(st.names)].flatMap((n) => (type.resources.has(n) ? [[n, type.resources.get(n)!] as const] : [])),
  );
  selections.set(type.resources, { key: st.key, selection });
  return selection;
}

/** Per type's resources and held set: whether the held set has a resource the type no longer has (asked on every push and request). */
const gone = new WeakMap<ReadonlyMap<string, Resource>, WeakMap<ReadonlyMap<string, Resource>, boolean>>();

/** Whether `held` has a resource that `type` no longer has. */
function goneFrom(type: TypeSnapshot, held: ReadonlyMap<string, Resource> | undefined): boolean {
  if (!held || held === type.resources) return false;
  let byHeld = gone.get(type.resources);
  if (!byHeld) gone.set(type.resources, (byHeld = new WeakMap()));
  let answer = byHeld.get(held);
  if (answer === undefined) {
    answer = false;
    for (const name of held.keys())
      if (!type.resources.has(name)) {
        answer = true;
        break;
      }
    byHeld.set(held, answer);
  }
  return answer;
}

function sameItems(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function keptVersion(typeVersion: string, kept: Resource[]): string {
  return `${typeVersion}+${createHash('sha256')
    .update(kept.map((r) => `${r.name}@${r.version}`).join('\n'))
    .digest('hex')
    .slice(0, 16)}`;
}

/** name -> version of a response's resources; computed only for a NACK, to keep streams small. */
function versionsOf(resources: ReadonlyMap<string, Resource> | undefined): Map<string, string> {
  return new Map([...(resources?.values() ?? [])].map((r) => [r.name, r.version]));
}

function namesKey(names: readonly string[], wildcard: boolean): string {
  return wildcard ? '*' : [...new Set(names)].sort().join('\n');
}

/** The DiscoveryResponse minus its nonce, encoded once per snapshot, type and name set. */
function sotwBody(
  snapshot: Snapshot,
  typeUrl: string,
  type: TypeSnapshot,
  key: string,
  select: () => Resource[],
): Buffer {
  const cacheKey = `${typeUrl}\n${key}`;
  let body = snapshot.bodies.get(cacheKey);
  if (!body) {
    // From each resource's kept Any entry (snapshot.ts): an unchanged resource is not encoded again.
    body = encodeSotwBody(type.version, typeUrl, select());
    snapshot.bodies.set(cacheKey, body);
  }
  return body;
}
