/**
 * A snapshot: one consistent set of resources, each encoded once, with
 * content-hash versions (per resource, per type, and for the whole), so
 * recompiling unchanged inputs changes no version and pushes nothing.
 */
import { createHash } from 'node:crypto';
import { HCM_TYPE } from '../translate/listener.js';
import { TYPE_URL } from '../../protos/contract.js';
import type { Json } from '../translate/output.js';
import { encodeMessage } from '../../protos/codec.js';
import { TYPE_ORDER, resourceName, type ResourceSet } from './resources.js';

export interface Resource {
  name: string;
  /** Hash of the encoded bytes. */
  version: string;
  /** The encoded message (the `value` of its Any). */
  value: Uint8Array;
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
  /** Encoded delta `resources` entries (field 2 of DeltaDiscoveryResponse), by type URL and name. */
  readonly deltaEntries = new Map<string, Buffer>();

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

/** Encodes every resource; throws when the set is not self-consistent (see `inconsistencies`). */
export function buildSnapshot(set: ResourceSet, encode: (typeUrl: string, json: Json) => Uint8Array = encodeMessage): Snapshot {
  const problems = inconsistencies(set);
  if (problems.length) throw new Error(`inconsistent snapshot: ${problems.join('; ')}`);
  const types = new Map<string, TypeSnapshot>();
  for (const typeUrl of [...TYPE_ORDER, ...Object.keys(set).filter((t) => !TYPE_ORDER.includes(t)).sort()]) {
    const resources = new Map<string, Resource>();
    for (const json of set[typeUrl] ?? []) {
      const name = resourceName(typeUrl, json);
      if (resources.has(name)) throw new Error(`duplicate ${typeUrl} resource "${name}"`);
      const value = encode(typeUrl, json);
      resources.set(name, { name, version: hash(value), value });
    }
    const sorted = new Map([...resources].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    const version = hash([...sorted.values()].map((r) => `${r.name}@${r.version}`).join('\n'));
    types.set(typeUrl, { version, resources: sorted });
  }
  return new Snapshot(types);
}

/**
 * What Envoy would wait for forever: a listener's RDS name with no route
 * configuration, an EDS cluster with no load assignment.
 */
export function inconsistencies(set: ResourceSet): string[] {
  const problems: string[] = [];
  const routeNames = new Set((set[TYPE_URL.route] ?? []).map((r) => resourceName(TYPE_URL.route, r)));
  const endpointNames = new Set((set[TYPE_URL.endpoint] ?? []).map((r) => resourceName(TYPE_URL.endpoint, r)));
  for (const listener of set[TYPE_URL.listener] ?? []) {
    for (const chain of (listener.filter_chains as Json[] | undefined) ?? []) {
      for (const filter of (chain.filters as Json[] | undefined) ?? []) {
        const hcm = filter.typed_config as Json | undefined;
        const rds = hcm?.['@type'] === HCM_TYPE ? (hcm.rds as Json | undefined) : undefined;
        const name = rds?.route_config_name;
        if (typeof name === 'string' && !routeNames.has(name))
          problems.push(`listener "${String(listener.name)}" uses route configuration "${name}", which does not exist`);
      }
    }
  }
  for (const cluster of set[TYPE_URL.cluster] ?? []) {
    if (cluster.type !== 'EDS') continue;
    const edsConfig = cluster.eds_cluster_config as Json | undefined;
    const name = (edsConfig?.service_name as string | undefined) || (cluster.name as string);
    if (!endpointNames.has(name)) problems.push(`EDS cluster "${name}" has no ClusterLoadAssignment`);
  }
  return problems;
}
