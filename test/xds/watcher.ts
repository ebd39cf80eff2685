/**
 * An ADS client that behaves as Envoy does on one ADS stream (SotW or
 * delta): wildcard CDS and LDS, the endpoints of every EDS cluster it has,
 * the route configurations its listeners name; every response applied in
 * arrival order and ACKed, a new EDS subscription asked for before a CDS
 * response is ACKed. Clusters warm as in Envoy: a new or changed EDS cluster
 * is used once its endpoints are there, the previous version of a changed
 * one serving meanwhile. After each response it checks what it holds: a
 * route naming a cluster that is not in use (absent, or still warming), or
 * an EDS cluster in use without endpoints, is a violation of make before
 * break (Envoy would answer 503 for that route). So is an EDS cluster still
 * without its endpoints after the second EDS response since the client asked
 * for them, while the server has them (the first may have crossed the
 * request; the second answers it): Envoy would keep that cluster warming
 * until its initial fetch timeout.
 */
import { DeltaClient, SotwClient, type DeltaResponse, type Json, type Response } from '../../harness/xds-client.js';
import { TYPE_URL as T } from './fixtures.js';
import type { Snapshot } from '../../control-plane/cache/snapshot.js';

export interface Violation {
  response: number;
  route: string;
  cluster: string;
  missing: 'cluster' | 'endpoints' | 'assignment';
}

export class EnvoyWatcher {
  /** What the client holds, per type: name -> resource. */
  readonly state = new Map<string, Map<string, Json>>(
    [T.cluster, T.endpoint, T.listener, T.route].map((t) => [t, new Map()]),
  );
  /** Clusters in use (warmed), and those waiting for their endpoints. */
  private readonly active = new Map<string, Json>();
  private readonly warming = new Map<string, Json>();
  readonly violations: Violation[] = [];
  /** Responses received so far. */
  received = 0;
  /** SotW: version_info of the last response per type; delta: name -> version per type. */
  readonly versions = new Map<string, string>();
  readonly resourceVersions = new Map<string, Map<string, string>>(
    [T.cluster, T.endpoint, T.listener, T.route].map((t) => [t, new Map()]),
  );
  private readonly sotw?: SotwClient;
  private readonly delta?: DeltaClient;
  private lastSotw = new Map<string, Response>();
  private edsNames: string[] = [];
  private rdsNames: string[] = [];
  private stopped = false;
  /** EDS names asked for and not received yet -> EDS responses received since. */
  private readonly asked = new Map<string, number>();
  readonly done: Promise<void>;

  /** `served` says whether the server has the endpoints of a cluster now (the assignment check is made only then). */
  constructor(
    port: number,
    protocol: 'sotw' | 'delta',
    node = 'watcher',
    private readonly served?: (cluster: string) => boolean,
  ) {
    if (protocol === 'sotw') this.sotw = new SotwClient(port, node);
    else this.delta = new DeltaClient(port, node);
    for (const type of [T.cluster, T.listener]) {
      if (this.sotw) this.sotw.send({ type_url: type });
      else this.delta!.send({ type_url: type });
    }
    this.done = this.loop();
  }

  close(): void {
    this.stopped = true;
    (this.sotw ?? this.delta)!.close();
  }

  /** Whether the client holds exactly what `snapshot` serves (no cluster kept for old routes, nothing missing). */
  syncedWith(snapshot: Snapshot): boolean {
    for (const type of [T.cluster, T.listener, T.route, T.endpoint]) {
      const served = snapshot.type(type)!.resources;
      const wanted = type === T.endpoint ? this.edsNames : type === T.route ? this.rdsNames : [...served.keys()];
      const held = this.resourceVersions.get(type)!;
      if (this.sotw) {
        if (wanted.length && this.versions.get(type) !== snapshot.type(type)!.version) return false;
        if (
          [...held.keys()].sort().join() !==
          wanted
            .filter((n) => served.has(n))
            .sort()
            .join()
        )
          return false;
      } else {
        if (held.size !== wanted.filter((n) => served.has(n)).length) return false;
        for (const name of wanted) if (served.has(name) && held.get(name) !== served.get(name)!.version) return false;
      }
    }
    return true;
  }

  private async loop(): Promise<void> {
    for (;;) {
      let r: Response | DeltaResponse;
      try {
        r = await (this.sotw ?? this.delta)!.next();
      } catch (err) {
        if (this.stopped) return;
        throw err;
      }
      this.received++;
      if ('version_info' in r) this.applySotw(r);
      else this.applyDelta(r);
      this.check();
      if (r.type_url === T.endpoint) this.checkAssignments(r);
      this.follow(r);
    }
  }

  private applySotw(r: Response): void {
    const held = this.state.get(r.type_url)!;
    const versions = this.resourceVersions.get(r.type_url)!;
    // CDS and LDS are whole sets; RDS and EDS name what they carry.
    if (r.type_url === T.cluster || r.type_url === T.listener) {
      const names = new Set(r.resources.map((res) => res.name as string));
      for (const name of held.keys()) if (!names.has(name)) this.remove(r.type_url, name);
    }
    for (const res of r.resources) {
      const name = (res.cluster_name ?? res.name) as string;
      // A SotW response repeats unchanged resources; Envoy leaves those alone.
      if (JSON.stringify(held.get(name)) !== JSON.stringify(res)) this.update(r.type_url, name, res);
      versions.set(name, r.version_info);
    }
    this.versions.set(r.type_url, r.version_info);
    this.lastSotw.set(r.type_url, r);
    this.dropOrphans();
  }

  private applyDelta(r: DeltaResponse): void {
    const versions = this.resourceVersions.get(r.type_url)!;
    for (const res of r.resources) {
      this.update(r.type_url, res.name, res.json);
      versions.set(res.name, res.version);
    }
    for (const name of r.removed_resources) this.remove(r.type_url, name);
    this.dropOrphans();
  }

  /** Envoy forgets the endpoints of a cluster it no longer has as EDS, and route configurations no listener names. */
  private dropOrphans(): void {
    const clusters = this.state.get(T.cluster)!;
    for (const name of this.state.get(T.endpoint)!.keys())
      if (clusters.get(name)?.type !== 'EDS') this.forget(T.endpoint, name);
    const routeNames = new Set(this.wantedRoutes());
    for (const name of this.state.get(T.route)!.keys()) if (!routeNames.has(name)) this.forget(T.route, name);
  }

  private update(type: string, name: string, res: Json): void {
    this.state.get(type)!.set(name, res);
    if (type === T.cluster) {
      if (res.type === 'EDS' && !this.state.get(T.endpoint)!.has(name)) this.warming.set(name, res);
      else {
        this.active.set(name, res);
        this.warming.delete(name);
      }
    }
    // Endpoints warm the clusters that waited for them.
    if (type === T.endpoint && this.warming.has(name)) {
      this.active.set(name, this.warming.get(name)!);
      this.warming.delete(name);
    }
  }

  private remove(type: string, name: string): void {
    this.forget(type, name);
    if (type === T.cluster) {
      this.active.delete(name);
      this.warming.delete(name);
    }
  }

  private forget(type: string, name: string): void {
    this.state.get(type)!.delete(name);
    this.resourceVersions.get(type)!.delete(name);
  }

  private check(): void {
    const clusters = this.active;
    const endpoints = this.state.get(T.endpoint)!;
    for (const [routeName, config] of this.state.get(T.route)!) {
      for (const vh of config.virtual_hosts ?? []) {
        for (const route of vh.routes ?? []) {
          const cluster = route.route?.cluster as string | undefined;
          if (!cluster) continue;
          const where = `${routeName}/${vh.name}`;
          if (!clusters.has(cluster))
            this.violations.push({ response: this.received, route: where, cluster, missing: 'cluster' });
          else if (clusters.get(cluster)!.type === 'EDS' && !endpoints.has(cluster))
            this.violations.push({ response: this.received, route: where, cluster, missing: 'endpoints' });
        }
      }
    }
  }

  /** After an EDS response: each asked-for name it lacks has waited one more response; a second one without it is a violation. */
  private checkAssignments(r: Response | DeltaResponse): void {
    const carried = new Set(
      'version_info' in r ? r.resources.map((res) => res.cluster_name as string) : r.resources.map((res) => res.name),
    );
    const clusters = this.state.get(T.cluster)!;
    for (const [name, waited] of this.asked) {
      if (carried.has(name) || clusters.get(name)?.type !== 'EDS') {
        this.asked.delete(name);
        continue;
      }
      this.asked.set(name, waited + 1);
      if (waited + 1 >= 2 && this.served?.(name)) {
        this.violations.push({ response: this.received, route: '(warming)', cluster: name, missing: 'assignment' });
        this.asked.delete(name);
      }
    }
  }

  private wantedRoutes(): string[] {
    const names = new Set<string>();
    for (const listener of this.state.get(T.listener)!.values())
      for (const chain of listener.filter_chains ?? [])
        for (const filter of chain.filters ?? []) {
          const name = filter.typed_config?.rds?.route_config_name;
          if (name) names.add(name);
        }
    return [...names].sort();
  }

  private wantedEndpoints(): string[] {
    return [...this.state.get(T.cluster)!.values()]
      .filter((c) => c.type === 'EDS')
      .map((c) => c.name as string)
      .sort();
  }

  /** As Envoy: new EDS/RDS subscriptions first (asked for before the CDS/LDS ACK), then the ACK. */
  private follow(r: Response | DeltaResponse): void {
    const eds = this.wantedEndpoints();
    const rds = this.wantedRoutes();
    if (this.sotw) {
      const sotw = this.sotw;
      const resubscribe = (type: string, names: string[], current: string[]) => {
        if (names.join() === current.join() || r.type_url === type) return;
        const last = this.lastSotw.get(type);
        sotw.send({
          type_url: type,
          resource_names: names,
          version_info: last?.version_info ?? '',
          response_nonce: last?.nonce ?? '',
        });
      };
      resubscribe(T.endpoint, eds, this.edsNames);
      resubscribe(T.route, rds, this.rdsNames);
      for (const n of eds) if (!this.edsNames.includes(n)) this.asked.set(n, 0);
      this.edsNames = eds;
      this.rdsNames = rds;
      const sotwR = r as Response;
      sotw.ack(sotwR, sotwR.type_url === T.endpoint ? eds : sotwR.type_url === T.route ? rds : []);
    } else {
      const delta = this.delta!;
      const resubscribe = (type: string, names: string[], current: string[]) => {
        const subscribe = names.filter((n) => !current.includes(n));
        const unsubscribe = current.filter((n) => !names.includes(n));
        if (subscribe.length || unsubscribe.length)
          delta.send({ type_url: type, resource_names_subscribe: subscribe, resource_names_unsubscribe: unsubscribe });
        for (const n of unsubscribe) this.forget(type, n);
      };
      resubscribe(T.endpoint, eds, this.edsNames);
      resubscribe(T.route, rds, this.rdsNames);
      for (const n of eds) if (!this.edsNames.includes(n)) this.asked.set(n, 0);
      this.edsNames = eds;
      this.rdsNames = rds;
      delta.ack(r as DeltaResponse);
    }
  }
}
