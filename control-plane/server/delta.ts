/**
 * Incremental streams (DeltaAggregatedResources, Delta<Type>): only
 * resources whose content hash differs from what the client has
 * (initial_resource_versions on reconnect), vanished ones in
 * removed_resources; one response in flight per type, changes while it is
 * unanswered merged into the next one after the ACK/NACK. VHDS (serve
 * --vhds) is delta only: its selection and on-demand answers are vhds.ts.
 */
import { TYPE_URL } from '../../contract/names.js';
import { WILDCARD_TYPES, type Resource, type Snapshot, type TypeSnapshot } from '../cache/snapshot.js';
import { KnownVersions } from './known.js';
import { REFERRED_TYPES, REFERRING_TYPES, type Held } from './ordering.js';
import { AdsStream } from './stream.js';
import { aliasEntries, hostDiff, NO_DIFF, NOTHING_HELD, vhdsSelection } from './vhds.js';
import { deltaEntry, deltaHead, type DeltaRequest, type EncodedDeltaResponse } from './wire.js';

interface DeltaTypeState {
  subscribed: Set<string>;
  wildcard: boolean;
  /** name -> version the client has (or has been sent). */
  known: KnownVersions;
  /**
   * The response awaiting ACK/NACK: at most one per type. Changes meanwhile
   * wait and go out merged, in the next response after the answer, so a
   * client that stops answering costs one response per type, whatever the
   * number of edits.
   */
  inFlight?: {
    nonce: string;
    version: string;
    resources: Map<string, string>;
    added: Set<string>;
    removed: Set<string>;
  };
  /**
   * A fresh wildcard subscription is answered even when there is nothing in
   * it, so the client knows the set is empty (Envoy would otherwise wait out
   * its initial fetch timeout).
   */
  answerEmpty: boolean;
  /** Type version the client was last brought fully up to date with, for the current subscriptions. */
  syncedVersion?: string;
  /** Listeners, route configurations and virtual hosts only: what the client holds (ACKed) and was sent, for make before break. */
  held?: { sent: ReadonlyMap<string, Resource | undefined>; acked: ReadonlyMap<string, Resource | undefined> };
  /** VHDS only: on-demand requests (`<route configuration>/<host>`) not answered yet; `subscribed` holds the route configurations, each a namespace of virtual hosts. */
  aliases?: Set<string>;
}

export class DeltaStream extends AdsStream<DeltaTypeState, DeltaRequest, EncodedDeltaResponse> {
  readonly protocol = 'delta' as const;

  protected onRequest(req: DeltaRequest): void {
    this.adoptNode(req.node);
    const typeUrl = req.type_url;
    if (!typeUrl) return;
    let st = this.types.get(typeUrl);
    if (!st) {
      const known = new KnownVersions(Object.entries(req.initial_resource_versions ?? {}));
      const wildcard =
        (req.resource_names_subscribe.length === 0 && WILDCARD_TYPES.has(typeUrl)) ||
        req.resource_names_subscribe.includes('*');
      st = { subscribed: new Set(), wildcard, known, answerEmpty: wildcard && known.size === 0 };
      if (REFERRING_TYPES.has(typeUrl)) {
        // A reconnecting client's resources, where the current snapshot has that version (else their clusters are unknown).
        const current = this.snapshot()?.type(typeUrl)?.resources;
        // A new client's is one map shared by all: what it is sent first (10,000 virtual hosts, say) is then one diff for all of them (hostDiff), computed once and kept once.
        const held =
          known.size === 0
            ? NOTHING_HELD
            : new Map(
                [...known.keys()].map((name) => [
                  name,
                  current?.get(name)?.version === known.get(name) ? current!.get(name) : undefined,
                ]),
              );
        st.held = { sent: held, acked: held };
      }
      this.types.set(typeUrl, st);
    }
    if (req.response_nonce) {
      const answered = st.inFlight?.nonce === req.response_nonce ? st.inFlight : undefined;
      if (!answered) this.stale(typeUrl, req.response_nonce);
      else {
        st.inFlight = undefined;
        if (req.error_detail) {
          // The client keeps what it had: resources new in the rejected response are not held.
          for (const name of answered.added) st.known.delete(name);
          if (st.held) st.held = { sent: st.held.acked, acked: st.held.acked };
          this.nacked(typeUrl, answered.version, answered.resources, req.error_detail);
        } else {
          if (st.held) st.held = { sent: st.held.sent, acked: st.held.sent };
          this.acked(typeUrl, answered.version);
        }
      }
    }
    if (req.resource_names_subscribe.length || req.resource_names_unsubscribe.length) st.syncedVersion = undefined;
    const vhds = typeUrl === TYPE_URL.virtualHost;
    for (const name of req.resource_names_subscribe) {
      if (name === '*') st.wildcard = true;
      // VHDS: a route configuration's name subscribes to its virtual hosts (answered even when it has none: Envoy waits for it); `<route configuration>/<host>` asks for the one a host selects.
      else if (vhds && name.includes('/')) (st.aliases ??= new Set()).add(name);
      else {
        if (vhds && !st.subscribed.has(name)) st.answerEmpty = true;
        st.subscribed.add(name);
      }
    }
    for (const name of req.resource_names_unsubscribe) {
      if (name === '*') st.wildcard = false;
      else {
        st.subscribed.delete(name);
        st.known.delete(name);
        st.aliases?.delete(name);
      }
    }
    // An answer frees its type for the changes that waited, and may let another type go (make before break).
    this.pushAll();
    this.processed(typeUrl);
  }

  protected held(typeUrl: string): Held | undefined {
    return this.types.get(typeUrl)?.held;
  }

  protected holds(typeUrl: string, name: string, version?: string): boolean {
    const st = this.types.get(typeUrl);
    if (!st || (typeUrl === TYPE_URL.cluster && !(st.wildcard || st.subscribed.has(name)))) return true;
    // `known` is what the client has once the response in flight is applied: a cluster it adds or changes must be ACKed first; endpoints it adds too (new endpoints for a cluster keep it usable).
    if (st.inFlight?.added.has(name) || (typeUrl === TYPE_URL.cluster && st.inFlight?.resources.has(name)))
      return false;
    return st.known.has(name) && (version === undefined || st.known.get(name) === version);
  }

  /**
   * Whether the client may still hold cluster `name` as an EDS cluster: its
   * CDS update or removal is not ACKed yet. Its endpoints stay until then
   * (an EDS cluster left without endpoints takes no traffic).
   */
  private clusterUnsettled(name: string, snapshot: Snapshot): boolean {
    const cds = this.types.get(TYPE_URL.cluster);
    if (!cds) return false;
    if (cds.inFlight?.resources.has(name) || cds.inFlight?.removed.has(name)) return true;
    return cds.known.get(name) !== snapshot.type(TYPE_URL.cluster)?.resources.get(name)?.version;
  }

  protected push(typeUrl: string, snapshot: Snapshot): void {
    const st = this.types.get(typeUrl);
    const type = snapshot.type(typeUrl);
    if (st && type && typeUrl === TYPE_URL.virtualHost) return this.pushVirtualHosts(st, type, snapshot);
    // Unchanged type, unchanged subscriptions: skip the diff (a CDS of 1,000 clusters, times every client, on every route edit).
    if (!st || !type || this.isClosed || st.inFlight || st.syncedVersion === type.version) return;
    const rejected = this.host.cache.lastNack(this.nodeId(), typeUrl)?.resources;
    const keep = REFERRED_TYPES.has(typeUrl) ? this.heldRefs() : undefined;
    const endpoints = typeUrl === TYPE_URL.endpoint;
    const wanted = st.wildcard ? new Set([...type.resources.keys(), ...st.subscribed]) : st.subscribed;
    const changed: Resource[] = [];
    const removed: string[] = [];
    /** Something is held back for make before break: the type is not up to date yet. */
    let waiting = false;
    /** A resource left out because the client rejected that very version. */
    let skipped = false;
    const remove = (name: string) => {
      if (keep?.has(name) || (endpoints && this.clusterUnsettled(name, snapshot))) waiting = true;
      else removed.push(name);
    };
    for (const name of wanted) {
      const resource = type.resources.get(name);
      if (!resource) {
        if (st.known.has(name)) remove(name);
      } else if (st.known.get(name) !== resource.version) {
        if (rejected?.get(name) === resource.version) skipped = true;
        else if (st.held && this.waits(typeUrl, resource, snapshot)) waiting = true;
        else changed.push(resource);
      }
    }
    if (st.wildcard)
      for (const name of st.known.keys()) if (!type.resources.has(name) && !wanted.has(name)) remove(name);
    /** Once this push is applied, the client has the whole type as it is: it shares the type's map (known.ts). */
    const inStep = st.wildcard && !waiting && !skipped;
    if (changed.length === 0 && removed.length === 0 && !st.answerEmpty) {
      if (!waiting) st.syncedVersion = type.version;
      if (inStep) st.known.share(type.resources);
      return;
    }
    if (this.writeBlocked()) return;
    if (!waiting) st.syncedVersion = type.version;
    st.answerEmpty = false;
    const nonce = this.nextNonce();
    const parts = [deltaHead(type.version, typeUrl, removed, nonce), ...changed.map((r) => deltaEntry(typeUrl, r))];
    this.send(
      { parts } satisfies EncodedDeltaResponse,
      parts.reduce((n, p) => n + p.length, 0),
    );
    const added = new Set(changed.filter((r) => !st.known.has(r.name)).map((r) => r.name));
    if (inStep) st.known.share(type.resources);
    else {
      for (const r of changed) st.known.set(r.name, r.version);
      for (const name of removed) st.known.delete(name);
    }
    if (st.held) {
      const sent = new Map(st.held.sent);
      for (const r of changed) sent.set(r.name, r);
      for (const name of removed) sent.delete(name);
      st.held = { ...st.held, sent };
    }
    st.inFlight = {
      nonce,
      version: type.version,
      resources: new Map(changed.map((r) => [r.name, r.version])),
      added,
      removed: new Set(removed),
    };
    this.pushed(typeUrl, type.version);
  }

  /**
   * VHDS: the client holds the virtual hosts of the route configurations it
   * subscribed to, tracked as the selection of the snapshot it was last sent
   * (one map shared by the clients that subscribe alike), so an edit costs
   * one diff for all of them (hostDiff), not a walk over 10,000 hosts per
   * client. Held back whole while a changed host names a cluster the client
   * has not ACKed (make before break).
   */
  private pushVirtualHosts(st: DeltaTypeState, type: TypeSnapshot, snapshot: Snapshot): void {
    if (this.isClosed || st.inFlight) return;
    const held = st.held!;
    const to = st.wildcard ? type.resources : vhdsSelection(type, st.subscribed);
    const rejected = this.host.cache.lastNack(this.nodeId(), TYPE_URL.virtualHost)?.version === type.version;
    const diff = to === held.sent || rejected ? NO_DIFF : hostDiff(held.sent, to);
    const aliases = [...(st.aliases ?? [])];
    if (diff.changed.length === 0 && diff.removed.length === 0 && aliases.length === 0 && !st.answerEmpty) return;
    if (diff.changed.some((r) => this.waits(TYPE_URL.virtualHost, r, snapshot))) return;
    if (this.writeBlocked()) return;
    const nonce = this.nextNonce();
    const answers = aliasEntries(aliases, type);
    // A host an alias resolved to goes once, in its alias entry: a response names each resource once.
    const parts = [
      deltaHead(type.version, TYPE_URL.virtualHost, diff.removed, nonce),
      ...diff.changed.filter((r) => !answers.names.has(r.name)).map((r) => deltaEntry(TYPE_URL.virtualHost, r)),
      ...answers.entries,
    ];
    this.send(
      { parts } satisfies EncodedDeltaResponse,
      parts.reduce((n, p) => n + p.length, 0),
    );
    if (!rejected) st.held = { sent: to, acked: held.acked };
    st.answerEmpty = false;
    st.aliases?.clear();
    st.inFlight = {
      nonce,
      version: type.version,
      resources: new Map(diff.changed.map((r) => [r.name, r.version])),
      added: new Set(),
      removed: new Set(diff.removed),
    };
    this.pushed(TYPE_URL.virtualHost, type.version);
  }
}
