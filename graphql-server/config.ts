/**
 * The compiled GraphQL APIs (contract/proto/sluice/graphql/v1/graphql_api.proto) as
 * proto3 JSON, from `--config FILE` (a GraphQLApiSet) or from xDS (decoded
 * Anys), into the typed configs of api.ts. Field names may be snake_case or
 * lowerCamelCase, as proto3 JSON parsers accept both. Every error names the
 * API and the field.
 */
import { loadJsonConfig } from '../runtime/config-file.js';
import { jsonField } from '../contract/proto3-json.js';
import type {
  ExecutableSchemaConfig,
  GraphQLApiConfig,
  RemoteExecutorConfig,
  ResolutionConfig,
  StitchedSchemaConfig,
  Target,
  TypeMergeConfig,
} from './api.js';

export class ConfigError extends Error {}

/** Upper bound of per-call timeouts: Node's timers misfire above 2^31-1 ms; 5 minutes is far beyond any client's wait. */
export const MAX_TIMEOUT_MS = 300_000;
/** Upper bound of max_depth: far beyond any real schema's nesting; a larger number is a typo. */
export const MAX_DEPTH = 1000;

type Obj = Record<string, unknown>;

const field = jsonField;

function obj(v: unknown, where: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof Uint8Array)
    throw new ConfigError(`${where}: must be an object`);
  return v as Obj;
}

function optObj(o: Obj, name: string, where: string): Obj | undefined {
  const v = field(o, name);
  return v === undefined || v === null ? undefined : obj(v, `${where}.${name}`);
}

function str(o: Obj, name: string, where: string, required = false): string {
  const v = field(o, name);
  if (v === undefined || v === null || v === '') {
    if (required) throw new ConfigError(`${where}.${name}: required`);
    return '';
  }
  if (typeof v !== 'string') throw new ConfigError(`${where}.${name}: must be a string`);
  return v;
}

function bool(o: Obj, name: string, where: string): boolean {
  const v = field(o, name);
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw new ConfigError(`${where}.${name}: must be true or false`);
  return v;
}

/** A uint32 (proto3 JSON writes it as a number or a decimal string) from 0 to max. */
function uint(o: Obj, name: string, max: number, where: string): number {
  const v = field(o, name);
  if (v === undefined || v === null) return 0;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0)
    throw new ConfigError(`${where}.${name}: must be a non-negative integer`);
  if (n > max) throw new ConfigError(`${where}.${name}: ${n} is above the limit of ${max}`);
  // -0 is proto3's unset as well.
  return n === 0 ? 0 : n;
}

function list(o: Obj, name: string, where: string): unknown[] {
  const v = field(o, name);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new ConfigError(`${where}.${name}: must be a list`);
  return v;
}

function entries(o: Obj, name: string, where: string): [string, unknown][] {
  const v = field(o, name);
  if (v === undefined || v === null) return [];
  return Object.entries(obj(v, `${where}.${name}`));
}

function stringMap(o: Obj, name: string, where: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of entries(o, name, where)) {
    if (typeof v !== 'string') throw new ConfigError(`${where}.${name}["${k}"]: must be a string`);
    out[k] = v;
  }
  return out;
}

/** proto3 JSON writes bytes as standard or URL-safe base64; a decoder may hand over the bytes themselves. */
function bytes(o: Obj, name: string, where: string): Uint8Array | undefined {
  const v = field(o, name);
  if (v === undefined || v === null || v === '') return undefined;
  if (v instanceof Uint8Array) return v.length ? v : undefined;
  if (typeof v !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(v))
    throw new ConfigError(`${where}.${name}: must be base64`);
  const buf = Buffer.from(v.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return buf.length ? new Uint8Array(buf) : undefined;
}

function target(o: Obj, where: string): Target {
  const t = optObj(o, 'target', where);
  const at = `${where}.target`;
  if (!t) throw new ConfigError(`${at}: required`);
  const hosts = list(t, 'hosts', at).map((h, i) => {
    const hw = `${at}.hosts[${i}]`;
    const ho = obj(h, hw);
    const port = uint(ho, 'port', 65535, hw);
    if (port === 0) throw new ConfigError(`${hw}.port: required (1-65535)`);
    return { address: str(ho, 'address', hw, true), port };
  });
  if (hosts.length === 0) throw new ConfigError(`${at}.hosts: at least one host is required`);
  return { cluster: str(t, 'cluster', at), hosts };
}

function resolution(raw: unknown, where: string): ResolutionConfig {
  const o = obj(raw, where);
  const grpc = optObj(o, 'grpc', where);
  const rest = optObj(o, 'rest', where);
  if (!!grpc === !!rest) throw new ConfigError(`${where}: exactly one of grpc and rest is required`);
  if (grpc) {
    const w = `${where}.grpc`;
    const message = field(grpc, 'outgoing_message_json');
    return {
      kind: 'grpc',
      serviceName: str(grpc, 'service_name', w, true),
      methodName: str(grpc, 'method_name', w, true),
      // Unset: the empty request message.
      outgoingMessageJson: message === undefined || message === null ? {} : message,
      target: target(grpc, w),
      timeoutMs: uint(grpc, 'timeout_ms', MAX_TIMEOUT_MS, w),
      requestMetadata: stringMap(grpc, 'request_metadata', w),
    };
  }
  const w = `${where}.rest`;
  const body = field(rest!, 'body');
  return {
    kind: 'rest',
    target: target(rest!, w),
    headers: stringMap(rest!, 'headers', w),
    queryParams: stringMap(rest!, 'query_params', w),
    ...(body === undefined || body === null ? {} : { body }),
    resultRoot: str(rest!, 'result_root', w),
    setters: stringMap(rest!, 'setters', w),
    timeoutMs: uint(rest!, 'timeout_ms', MAX_TIMEOUT_MS, w),
  };
}

function remote(o: Obj, where: string): RemoteExecutorConfig {
  return {
    target: target(o, where),
    headers: stringMap(o, 'headers', where),
    queryParams: stringMap(o, 'query_params', where),
    spanName: str(o, 'span_name', where),
  };
}

function executable(o: Obj, where: string): ExecutableSchemaConfig {
  const resolutions: Record<string, ResolutionConfig> = {};
  for (const [name, r] of entries(o, 'resolutions', where))
    resolutions[name] = resolution(r, `${where}.resolutions["${name}"]`);
  const r = optObj(o, 'remote', where);
  if (r && Object.keys(resolutions).length)
    throw new ConfigError(`${where}: a remote executor has no resolutions (found ${Object.keys(resolutions).length})`);
  const descriptors = bytes(o, 'proto_descriptor_bin', where);
  return {
    schemaDefinition: str(o, 'schema_definition', where, true),
    enableIntrospection: bool(o, 'enable_introspection', where),
    resolutions,
    ...(r ? { remote: remote(r, `${where}.remote`) } : {}),
    ...(descriptors ? { protoDescriptorBin: descriptors } : {}),
    maxDepth: uint(o, 'max_depth', MAX_DEPTH, where),
  };
}

function typeMerge(raw: unknown, where: string): TypeMergeConfig {
  const o = obj(raw, where);
  return {
    selectionSet: str(o, 'selection_set', where, true),
    queryName: str(o, 'query_name', where, true),
    args: stringMap(o, 'args', where),
  };
}

function stitched(o: Obj, where: string): StitchedSchemaConfig {
  const subschemas = list(o, 'subschemas', where).map((s, i) => {
    const sw = `${where}.subschemas[${i}]`;
    const so = obj(s, sw);
    const merges: Record<string, TypeMergeConfig> = {};
    for (const [type, m] of entries(so, 'type_merge', sw)) merges[type] = typeMerge(m, `${sw}.type_merge["${type}"]`);
    return { api: str(so, 'api', sw, true), typeMerge: merges };
  });
  if (subschemas.length === 0) throw new ConfigError(`${where}.subschemas: at least one subschema is required`);
  return { subschemas, enableIntrospection: bool(o, 'enable_introspection', where) };
}

/** One `sluice.graphql.v1.GraphQLApi`; `where` names it in errors until its name is known. */
export function parseGraphQLApi(raw: unknown, where = 'GraphQLApi'): GraphQLApiConfig {
  const o = obj(raw, where);
  const name = str(o, 'name', where, true);
  const at = `GraphQLApi ${name}`;
  const ex = optObj(o, 'executable', at);
  const st = optObj(o, 'stitched', at);
  if (!!ex === !!st) throw new ConfigError(`${at}: exactly one of executable and stitched is required`);
  return {
    name,
    logSensitiveInfo: bool(o, 'log_sensitive_info', at),
    explorer: bool(o, 'explorer', at),
    ...(ex ? { executable: executable(ex, `${at}: executable`) } : { stitched: stitched(st!, `${at}: stitched`) }),
  };
}

/**
 * A whole set, checked as a set: names are unique and every stitched
 * subschema names another API of the set. (Cycles between stitched APIs are
 * found when the registry builds them.)
 */
export function checkApiSet(apis: GraphQLApiConfig[]): GraphQLApiConfig[] {
  const names = new Set<string>();
  for (const api of apis) {
    if (names.has(api.name)) throw new ConfigError(`GraphQLApi ${api.name} is defined twice`);
    names.add(api.name);
  }
  for (const api of apis) {
    api.stitched?.subschemas.forEach((s, i) => {
      const where = `GraphQLApi ${api.name}: stitched.subschemas[${i}].api`;
      if (s.api === api.name) throw new ConfigError(`${where}: an API cannot stitch itself`);
      if (!names.has(s.api)) throw new ConfigError(`${where}: no GraphQLApi named ${s.api} in this configuration`);
    });
  }
  return apis;
}

/** The `GraphQLApiSet` that `sluice compile -o DIR` writes to DIR/graphql.json. */
export function parseGraphQLApiSet(raw: unknown): GraphQLApiConfig[] {
  const o = obj(raw, 'GraphQLApiSet');
  return checkApiSet(list(o, 'resources', 'GraphQLApiSet').map((r, i) => parseGraphQLApi(r, `resources[${i}]`)));
}

export async function loadConfigFile(file: string): Promise<GraphQLApiConfig[]> {
  return loadJsonConfig(file, parseGraphQLApiSet, ConfigError);
}
