/**
 * The gRPC service the sidecar serves, `envoy.service.auth.v3.Authorization`,
 * loaded with @grpc/proto-loader from Envoy's API protos (include paths from
 * the shared contract/envoy.ts). Loaded once per process. The xDS side uses
 * runtime/ads-client.ts and contract/codec.ts instead.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import { INCLUDE_DIRS } from '../contract/envoy.js';

let cached: { pkg: protoLoader.PackageDefinition; grpcObject: grpc.GrpcObject } | undefined;

function load() {
  if (!cached) {
    const pkg = protoLoader.loadSync(
      ['envoy/service/auth/v3/external_auth.proto'],
      // keepCase: snake_case fields as in the protos; longs as strings; enums as names on decode.
      { keepCase: true, longs: String, enums: String, defaults: false, oneofs: true, includeDirs: [...INCLUDE_DIRS] },
    );
    cached = { pkg, grpcObject: grpc.loadPackageDefinition(pkg) };
  }
  return cached;
}

/** Client constructor for `envoy.service.auth.v3.Authorization` (tests and the benchmark call Check like Envoy). */
export function authorizationClient(): grpc.ServiceClientConstructor {
  let node: unknown = load().grpcObject;
  for (const part of 'envoy.service.auth.v3.Authorization'.split('.')) node = (node as Record<string, unknown>)[part];
  if (!node) throw new Error('proto envoy.service.auth.v3.Authorization not loaded');
  return node as grpc.ServiceClientConstructor;
}

/** `envoy.service.auth.v3.Authorization`. */
export function authorizationService(): grpc.ServiceDefinition {
  return authorizationClient().service;
}

/** (De)serializer of a loaded message type, e.g. `envoy.service.auth.v3.CheckRequest`. */
export function messageType(fullName: string): protoLoader.MessageTypeDefinition<unknown, unknown> {
  const def = load().pkg[fullName];
  if (!def || !('serialize' in def)) throw new Error(`message ${fullName} not loaded`);
  return def as protoLoader.MessageTypeDefinition<unknown, unknown>;
}

/** What the sidecar reads of a request's HTTP attributes. */
export interface HttpRequestView {
  headers?: Record<string, string>;
  method?: string;
  path?: string;
  host?: string;
  /** Sent when the ext_authz filter buffers the body (with_request_body). */
  body?: string;
}

/** What the sidecar reads of a CheckRequest (protobufjs leaves an absent message null, an absent string ''). */
export interface CheckRequestView {
  attributes?: {
    request?: { http?: HttpRequestView | null } | null;
    context_extensions?: Record<string, string>;
    /** Dynamic metadata of the filters the ext_authz filter forwards, each namespace's google.protobuf.Struct left encoded. */
    metadata_context?: { filter_metadata?: Record<string, Uint8Array> } | null;
  } | null;
  /** The bytes it was decoded from: the request as Envoy sent it, for the modules that hand it on. */
  raw: Uint8Array;
}

/**
 * envoy.service.auth.v3.CheckRequest with only the fields the sidecar
 * reads (the modules that need more, such as passThroughAuth, read the
 * raw bytes), by their numbers in Envoy's protos (attribute_context.proto; a
 * test holds them to the loaded protos). Decoding skips the rest (peers,
 * time, metadata): half the cost of decoding the whole message, on every
 * check.
 */
const CHECK_REQUEST_VIEW = {
  CheckRequest: { fields: { attributes: { type: 'AttributeContext', id: 1 } } },
  AttributeContext: {
    fields: {
      request: { type: 'Request', id: 4 },
      context_extensions: { keyType: 'string', type: 'string', id: 10 },
      metadata_context: { type: 'Metadata', id: 11 },
    },
  },
  // A Struct is length-delimited on the wire, as bytes are: kept encoded until a module reads it.
  Metadata: { fields: { filter_metadata: { keyType: 'string', type: 'bytes', id: 1 } } },
  Request: { fields: { http: { type: 'HttpRequest', id: 2 } } },
  HttpRequest: {
    fields: {
      method: { type: 'string', id: 2 },
      headers: { keyType: 'string', type: 'string', id: 3 },
      path: { type: 'string', id: 4 },
      host: { type: 'string', id: 5 },
      body: { type: 'string', id: 11 },
    },
  },
};

/** The view's types, by the name of the Envoy message each one reads. */
export const CHECK_REQUEST_VIEW_OF: Record<keyof typeof CHECK_REQUEST_VIEW, string> = {
  CheckRequest: 'envoy.service.auth.v3.CheckRequest',
  AttributeContext: 'envoy.service.auth.v3.AttributeContext',
  Request: 'envoy.service.auth.v3.AttributeContext.Request',
  HttpRequest: 'envoy.service.auth.v3.AttributeContext.HttpRequest',
  Metadata: 'envoy.config.core.v3.Metadata',
};

export function checkRequestViewRoot(): protobuf.Root {
  return protobuf.Root.fromJSON({ nested: CHECK_REQUEST_VIEW });
}

/** Decodes a CheckRequest into the view (a protobufjs message; read it, do not change it), keeping its bytes. */
export function checkRequestView(): (bytes: Buffer) => CheckRequestView {
  const type = checkRequestViewRoot().lookupType('CheckRequest');
  return (bytes) => {
    const view = type.decode(bytes) as unknown as CheckRequestView;
    view.raw = bytes;
    return view;
  };
}

let statusCodes: Map<string, number> | undefined;

/** An envoy.type.v3.StatusCode, by name as decoded (`Forbidden`) or by number; undefined when absent or not an HTTP status. */
export function statusCodeOf(code: string | number | undefined): number | undefined {
  if (typeof code === 'number') return code >= 100 && code <= 599 ? code : undefined;
  if (!code) return undefined;
  if (!statusCodes) {
    const def = load().pkg['envoy.type.v3.StatusCode'] as unknown as {
      type: { value: { name: string; number: number }[] };
    };
    statusCodes = new Map(def.type.value.map((v) => [v.name, v.number]));
  }
  const n = statusCodes.get(code);
  return n !== undefined && n >= 100 ? n : undefined;
}
