/**
 * The discovery messages on the wire: requests as grpc-js decodes them, and
 * responses framed by hand from pieces encoded once and shared across
 * clients (a resource's entry, a SotW body), so a push to many clients does
 * not encode the same bytes for each.
 */
import protobuf from 'protobufjs';
import { discoveryTypes } from '../../contract/discovery.js';
import type { Json } from '../../compiler/translate/output.js';
import type { ErrorDetail } from '../cache/cache.js';
import { keepValueIn, withValueLast, type Resource } from '../cache/snapshot.js';

/** Field 5 (nonce), wire type 2. */
const NONCE_TAG = (5 << 3) | 2;
/** Fields of DeltaDiscoveryResponse, wire type 2. */
const DELTA_TAG = {
  systemVersionInfo: (1 << 3) | 2,
  resources: (2 << 3) | 2,
  typeUrl: (4 << 3) | 2,
  removed: (6 << 3) | 2,
  nonce: NONCE_TAG,
};
/** envoy.service.discovery.v3.Resource fields, wire type 2: version, resource (the Any), name. */
const RESOURCE_TAG = { version: (1 << 3) | 2, resource: (2 << 3) | 2, name: (3 << 3) | 2 };

/** A delta response as encoded pieces; the resource entries are shared across clients. */
export interface EncodedDeltaResponse {
  parts: Uint8Array[];
}

/** A SotW response: the encoded DiscoveryResponse without its nonce (shared across clients), and the nonce. */
export interface EncodedResponse {
  body: Buffer;
  nonce: string;
}

export interface NodeMessage {
  id?: string;
  cluster?: string;
  user_agent_name?: string;
  user_agent_version?: string;
  metadata?: { fields?: Record<string, { numberValue?: number; stringValue?: string }> } | null;
}

/** A DiscoveryRequest (SotW). */
export interface Request {
  version_info: string;
  node?: NodeMessage | null;
  resource_names: string[];
  type_url: string;
  response_nonce: string;
  error_detail?: ErrorDetail | null;
}

export interface DeltaRequest {
  node?: NodeMessage | null;
  type_url: string;
  resource_names_subscribe: string[];
  resource_names_unsubscribe: string[];
  initial_resource_versions: Record<string, string>;
  response_nonce: string;
  error_detail?: ErrorDetail | null;
}

/** The bytes of a SotW response: its shared body, then its nonce (fields in any order are one message). */
export function sotwResponseBytes(r: EncodedResponse): Buffer {
  return Buffer.concat([r.body, protobuf.Writer.create().uint32(NONCE_TAG).string(r.nonce).finish()]);
}

/** The fields of a DeltaDiscoveryResponse before its resources: system version, type, the names removed, nonce. */
export function deltaHead(version: string, typeUrl: string, removed: readonly string[], nonce: string): Uint8Array {
  const head = protobuf.Writer.create()
    .uint32(DELTA_TAG.systemVersionInfo)
    .string(version)
    .uint32(DELTA_TAG.typeUrl)
    .string(typeUrl);
  for (const name of removed) head.uint32(DELTA_TAG.removed).string(name);
  head.uint32(DELTA_TAG.nonce).string(nonce);
  return head.finish();
}

/** One `resources` entry of a DeltaDiscoveryResponse (tag, length, Resource), encoded once per resource and kept with it. */
export function deltaEntry(typeUrl: string, r: Resource): Uint8Array {
  // Fields in any order are one message: the Any last, so the entry ends with the value (withValueLast).
  return (r.deltaEntry ??= keepValueIn(
    r,
    withValueLast(
      r,
      protobuf.Writer.create()
        .uint32(DELTA_TAG.resources)
        .fork()
        .uint32(RESOURCE_TAG.name)
        .string(r.name)
        .uint32(RESOURCE_TAG.version)
        .string(r.version)
        .uint32(RESOURCE_TAG.resource)
        .fork(),
      typeUrl,
    )
      .ldelim()
      .ldelim()
      .finish(),
  ));
}

/** A `resources` entry made for one response (a VHDS alias answer), from its JSON. */
export function encodeDeltaEntry(resource: Json): Uint8Array {
  const { Resource: ResourceType } = discoveryTypes();
  const message = ResourceType.encode(ResourceType.fromObject(resource)).finish();
  return protobuf.Writer.create().uint32(DELTA_TAG.resources).bytes(message).finish();
}
