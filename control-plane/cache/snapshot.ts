/**
 * A snapshot: the xDS set as served, each resource encoded, with
 * content-hash versions (per resource, per type, and for the whole), so
 * recompiling unchanged inputs changes no version and pushes nothing.
 *
 * A SnapshotEncoder kept by the control loop encodes only messages it has not
 * seen (by object: translate keeps the messages of what did not change), so
 * an unchanged resource keeps its Resource, version and encoded bytes from one
 * snapshot to the next: delta xDS sends only what changed, and a SotW response
 * is assembled from the resources' cached Any entries (sotwBody), not
 * re-encoded per snapshot. The route configuration is encoded one virtual
 * host at a time, each kept, then joined.
 */
import { createHash } from 'node:crypto';
import protobuf from 'protobufjs';
import { TYPE_URL } from '../../contract/names.js';
import { encodeMessage } from '../../contract/codec.js';
import { XDS_KINDS, type Json, type XdsSet } from '../../compiler/translate/output.js';
import { namedClusters } from '../../compiler/translate/references.js';

/** ADS order (make before break): clusters, endpoints, secrets, listeners, routes, then the sidecars' types. */
export const TYPE_ORDER: readonly string[] = XDS_KINDS.map((k) => k.typeUrl);

/** Types a client may subscribe to with an empty name list (legacy wildcard); RDS and EDS go by name. */
export const WILDCARD_TYPES: ReadonlySet<string> = new Set([
  TYPE_URL.listener,
  TYPE_URL.cluster,
  TYPE_URL.authConfig,
  TYPE_URL.graphqlApi,
  TYPE_URL.rateLimitDomain,
]);

export interface Resource {
  name: string;
  /** Hash of the encoded bytes. */
  version: string;
  /** The encoded message (the `value` of its Any); once an entry below is made, a view of that entry's last bytes. */
  value: Uint8Array;
  /** This resource as one `resources` entry of a DiscoveryResponse (tag, length, Any), made on first use. */
  sotwEntry?: Uint8Array;
  /** This resource as one `resources` entry of a DeltaDiscoveryResponse (tag, length, Resource), made on first use. */
  deltaEntry?: Uint8Array;
  /** Of a listener, route configuration or virtual host the encoder made: the clusters it names (server/ordering.ts), read from its JSON, per virtual host kept. */
  clusterRefs?: readonly string[];
  /** Of a virtual host (VHDS): its domains, which resolve an Envoy's on-demand request for a host. */
  domains?: readonly string[];
}

export interface TypeSnapshot {
  /** Hash of every (name, version) of the type: the SotW `version_info`. */
  version: string;
  resources: Map<string, Resource>;
}

export class Snapshot {
  /** Hash of every type version. */
  readonly version: string;
  /** Encoded SotW response bodies, shared by every client that gets the same one. */
  readonly bodies = new Map<string, Buffer>();

  constructor(readonly types: ReadonlyMap<string, TypeSnapshot>) {
    this.version = hash([...types].map(([url, t]) => `${url}=${t.version}`).join('\n'));
  }

  type(typeUrl: string): TypeSnapshot | undefined {
    return this.types.get(typeUrl);
  }

  get resourceCount(): number {
    let n = 0;
    for (const t of this.types.values()) n += t.resources.size;
    return n;
  }
}

function hash(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex').slice(0, 16);
}

const VIRTUAL_HOST = 'envoy.config.route.v3.VirtualHost';
/** RouteConfiguration.virtual_hosts: field 2, length-delimited. */
const VIRTUAL_HOSTS_TAG = (2 << 3) | 2;

/** Encodes xDS sets into snapshots, keeping what it encoded by message object. */
export class SnapshotEncoder {
  private readonly resources = new WeakMap<Json, Resource>();
  private readonly virtualHosts = new WeakMap<Json, Uint8Array>();
  /** The last snapshot's resources by type URL and name: a message made anew with the same bytes keeps its Resource. */
  private last = new Map<string, ReadonlyMap<string, Resource>>();
  private lastTypes: ReadonlyMap<string, TypeSnapshot> = new Map();
  /** The last set's maps by type URL: a type given the very same map again keeps its TypeSnapshot without a look at its resources. */
  private lastMaps = new Map<string, ReadonlyMap<string, Json>>();

  /** The set as a snapshot. The set must have passed verifySet; its maps are not changed once given here. */
  build(set: XdsSet): Snapshot {
    const snapshot = assemble(
      this.lastTypes,
      XDS_KINDS.map(({ kind, typeUrl, messageType }) => [
        typeUrl,
        set[kind],
        (name: string, json: Json) => {
          let resource = this.resources.get(json);
          if (!resource || resource.name !== name) {
            const value = kind === 'routes' ? this.routeConfiguration(json) : encodeMessage(messageType, json);
            const version = hash(value);
            const before = this.last.get(typeUrl)?.get(name);
            resource = before?.version === version ? before : { name, version, value, ...this.refsOf(kind, json) };
            this.resources.set(json, resource);
          }
          return resource;
        },
        // An endpoint change gives every other type's map as it was (compiler/endpoint-update.ts).
        this.lastMaps.get(typeUrl) === set[kind],
      ]),
    );
    this.lastMaps = new Map(XDS_KINDS.map(({ kind, typeUrl }) => [typeUrl, set[kind]]));
    this.last = new Map([...snapshot.types].map(([url, t]) => [url, t.resources]));
    this.lastTypes = snapshot.types;
    return snapshot;
  }

  private readonly hostRefs = new WeakMap<Json, string[]>();

  /** The clusters a listener, route configuration or virtual host names (a route configuration's per virtual host, kept); a virtual host's domains. */
  private refsOf(kind: string, json: Json): { clusterRefs?: readonly string[]; domains?: readonly string[] } {
    if (kind === 'listeners' || kind === 'extensionConfigs')
      return { clusterRefs: [...namedClusters(json, new Set())] };
    if (kind === 'virtualHosts')
      return { clusterRefs: [...namedClusters(json, new Set())], domains: json.domains as string[] };
    if (kind !== 'routes') return {};
    const all = new Set<string>(namedClusters({ ...json, virtual_hosts: [] }, new Set()));
    for (const vh of (json.virtual_hosts as Json[] | undefined) ?? []) {
      let refs = this.hostRefs.get(vh);
      if (!refs) this.hostRefs.set(vh, (refs = [...namedClusters(vh, new Set())]));
      for (const r of refs) all.add(r);
    }
    return { clusterRefs: [...all] };
  }

  /** A RouteConfiguration: its other fields, then each virtual host's kept encoding (as one `virtual_hosts` entry). */
  private routeConfiguration(json: Json): Uint8Array {
    const vhosts = (json.virtual_hosts as Json[] | undefined) ?? [];
    const parts: Uint8Array[] = [
      encodeMessage(TYPE_URL.route.slice('type.googleapis.com/'.length), { ...json, virtual_hosts: [] }),
    ];
    for (const vh of vhosts) {
      let entry = this.virtualHosts.get(vh);
      if (!entry)
        this.virtualHosts.set(
          vh,
          (entry = protobuf.Writer.create().uint32(VIRTUAL_HOSTS_TAG).bytes(encodeMessage(VIRTUAL_HOST, vh)).finish()),
        );
      parts.push(entry);
    }
    return Buffer.concat(parts);
  }
}

/** Per type URL: its resources by name, and how one becomes a Resource. */
type TypeInput = [
  typeUrl: string,
  resources: Iterable<[string, Json]>,
  resource: (name: string, json: Json) => Resource,
  /** The resources are those the last snapshot was made of (the same map). */
  unchanged?: boolean,
];

/** The snapshot of `inputs`; a type whose resources are all those of `last` keeps its TypeSnapshot (no sort, no hash). */
function assemble(last: ReadonlyMap<string, TypeSnapshot>, inputs: TypeInput[]): Snapshot {
  const types = new Map<string, TypeSnapshot>();
  for (const [typeUrl, entries, toResource, unchanged] of inputs) {
    const kept = unchanged ? last.get(typeUrl) : undefined;
    if (kept) {
      types.set(typeUrl, kept);
      continue;
    }
    const list: Resource[] = [];
    for (const [name, json] of entries) list.push(toResource(name, json));
    const before = last.get(typeUrl);
    if (before && before.resources.size === list.length && list.every((r) => before.resources.get(r.name) === r)) {
      types.set(typeUrl, before);
      continue;
    }
    list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const resources = new Map<string, Resource>();
    for (const r of list) {
      if (resources.has(r.name)) throw new Error(`duplicate ${typeUrl} resource "${r.name}"`);
      resources.set(r.name, r);
    }
    const version = hash(list.map((r) => `${r.name}@${r.version}`).join('\n'));
    types.set(typeUrl, { version, resources });
  }
  return new Snapshot(types);
}

/** Resources to serve, per type URL, for serving what is not a compiled set (the sidecars' tests). */
export type ResourceSet = Record<string, Json[]>;

/** The name a resource goes by in xDS: `cluster_name` for ClusterLoadAssignment, `name` otherwise. */
export function resourceName(typeUrl: string, resource: Json): string {
  // A RateLimitDomain is named by its domain (contract/proto/sluice/ratelimit/v1/ratelimit.proto).
  const name =
    typeUrl === TYPE_URL.endpoint
      ? resource.cluster_name
      : typeUrl === TYPE_URL.rateLimitDomain
        ? resource.domain
        : resource.name;
  if (typeof name !== 'string' || name === '') throw new Error(`${typeUrl} resource without a name`);
  return name;
}

/** A snapshot of plain resource lists, each encoded by `encode`; types in ADS order, then the rest. */
export function buildSnapshot(
  set: ResourceSet,
  encode: (typeUrl: string, json: Json) => Uint8Array = encodeMessage,
): Snapshot {
  const urls = [
    ...TYPE_ORDER,
    ...Object.keys(set)
      .filter((t) => !TYPE_ORDER.includes(t))
      .sort(),
  ];
  return assemble(
    new Map(),
    urls.map((typeUrl) => [
      typeUrl,
      (set[typeUrl] ?? []).map((json) => [resourceName(typeUrl, json), json] as [string, Json]),
      (name: string, json: Json) => {
        const value = encode(typeUrl, json);
        return { name, version: hash(value), value };
      },
    ]),
  );
}

/**
 * `writer` with the resource's Any appended, its value last. An entry that
 * ends with the value's bytes lets the Resource keep a view of them
 * (keepValueIn) instead of a copy of its own.
 */
export function withValueLast(r: Resource, writer: protobuf.Writer, typeUrl: string): protobuf.Writer {
  return writer.uint32(ANY_TAG.typeUrl).string(typeUrl).uint32(ANY_TAG.value).bytes(r.value);
}

/** `entry` (made by withValueLast), after which the resource's value is its last bytes, the same bytes: its own copy is freed (7 MiB at 10,000 virtual hosts). */
export function keepValueIn(r: Resource, entry: Uint8Array): Uint8Array {
  r.value = entry.subarray(entry.length - r.value.length);
  return entry;
}

/** DiscoveryResponse fields, wire type 2: version_info, resources, type_url. Any: type_url, value. */
const SOTW_TAG = { versionInfo: (1 << 3) | 2, resources: (2 << 3) | 2, typeUrl: (4 << 3) | 2 };
const ANY_TAG = { typeUrl: (1 << 3) | 2, value: (2 << 3) | 2 };

/**
 * A DiscoveryResponse without its nonce: version, type URL and the given
 * resources, from each resource's Any entry, made once per resource and kept
 * with it for as long as it is unchanged.
 */
export function sotwBody(version: string, typeUrl: string, resources: readonly Resource[]): Buffer {
  // In field order, as a protobuf encoder would write it.
  const parts: Uint8Array[] = [protobuf.Writer.create().uint32(SOTW_TAG.versionInfo).string(version).finish()];
  for (const r of resources) {
    r.sotwEntry ??= keepValueIn(
      r,
      withValueLast(r, protobuf.Writer.create().uint32(SOTW_TAG.resources).fork(), typeUrl).ldelim().finish(),
    );
    parts.push(r.sotwEntry);
  }
  parts.push(protobuf.Writer.create().uint32(SOTW_TAG.typeUrl).string(typeUrl).finish());
  return Buffer.concat(parts);
}
