/**
 * The gRPC service the sidecar serves, `envoy.service.auth.v3.Authorization`,
 * loaded with @grpc/proto-loader from Envoy's API protos (include paths from
 * the shared protos/envoy.ts). Loaded once per process. The xDS side uses
 * protos/ads-client.ts and protos/codec.ts instead.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { INCLUDE_DIRS } from '../protos/envoy.js';

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
