/**
 * gRPC service and message definitions the sidecar speaks, loaded with
 * @grpc/proto-loader from Envoy's API protos and protos/sluice (the include
 * paths come from the shared protos/envoy.ts). Loaded once per process.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { INCLUDE_DIRS } from '../protos/envoy.js';

export const AUTHCONFIG_TYPE = 'sluice.extauth.v1.AuthConfig';
export const AUTHCONFIG_TYPE_URL = `type.googleapis.com/${AUTHCONFIG_TYPE}`;

let cached: { pkg: protoLoader.PackageDefinition; grpcObject: grpc.GrpcObject } | undefined;

function load() {
  if (!cached) {
    const pkg = protoLoader.loadSync(
      ['envoy/service/auth/v3/external_auth.proto', 'envoy/service/discovery/v3/ads.proto', 'sluice/extauth/v1/authconfig.proto'],
      // keepCase: snake_case fields as in the protos; longs as strings; enums as names on decode.
      { keepCase: true, longs: String, enums: String, defaults: false, oneofs: true, includeDirs: [...INCLUDE_DIRS] },
    );
    cached = { pkg, grpcObject: grpc.loadPackageDefinition(pkg) };
  }
  return cached;
}

function lookup(name: string): unknown {
  let node: unknown = load().grpcObject;
  for (const part of name.split('.')) node = (node as Record<string, unknown>)[part];
  if (!node) throw new Error(`proto ${name} not loaded`);
  return node;
}

/** `envoy.service.auth.v3.Authorization`. */
export function authorizationService(): grpc.ServiceDefinition {
  return (lookup('envoy.service.auth.v3.Authorization') as grpc.ServiceClientConstructor).service;
}

/** Client constructor for `envoy.service.auth.v3.Authorization` (tests and the benchmark call Check like Envoy). */
export function authorizationClient(): grpc.ServiceClientConstructor {
  return lookup('envoy.service.auth.v3.Authorization') as grpc.ServiceClientConstructor;
}

/** Client constructor for `envoy.service.discovery.v3.AggregatedDiscoveryService`. */
export function adsClient(): grpc.ServiceClientConstructor {
  return lookup('envoy.service.discovery.v3.AggregatedDiscoveryService') as grpc.ServiceClientConstructor;
}

/** (De)serializer of a loaded message type, e.g. `envoy.service.auth.v3.CheckRequest`. */
export function messageType(fullName: string): protoLoader.MessageTypeDefinition<unknown, unknown> {
  const def = load().pkg[fullName];
  if (!def || !('serialize' in def)) throw new Error(`message ${fullName} not loaded`);
  return def as protoLoader.MessageTypeDefinition<unknown, unknown>;
}

/** Decodes the bytes of an Any holding a `sluice.extauth.v1.AuthConfig`. */
export function decodeAuthConfig(bytes: Buffer): unknown {
  return messageType(AUTHCONFIG_TYPE).deserialize(bytes);
}

/** Encodes a `sluice.extauth.v1.AuthConfig` (snake_case object), for tests that serve one over ADS. */
export function encodeAuthConfig(config: unknown): Buffer {
  return messageType(AUTHCONFIG_TYPE).serialize(config);
}
