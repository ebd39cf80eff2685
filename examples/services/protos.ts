/**
 * The .proto files of the example gRPC services (users.UserService,
 * products.ProductService), shared by examples/services/grpc.ts and the gRPC
 * test fixtures.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** tsc does not copy .proto files: from dist/examples/services look in the source tree. */
export const PROTO_DIR = [path.join(HERE, 'protos'), path.resolve(HERE, '../../../examples/services/protos')].find(
  (p) => fs.existsSync(path.join(p, 'users.proto')),
)!;
export const PROTO_FILES = ['users.proto', 'products.proto'];

/**
 * The package definition with proto field names as written (keepCase: reflection
 * serves the files as written, full_name not fullName), 64-bit integers and enums as text.
 */
export function loadProtos(): { pkg: protoLoader.PackageDefinition; grpcObject: grpc.GrpcObject } {
  const pkg = protoLoader.loadSync(PROTO_FILES, {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    includeDirs: [PROTO_DIR],
  });
  return { pkg, grpcObject: grpc.loadPackageDefinition(pkg) };
}

/** The service definition of a fully qualified service name, e.g. `users.UserService`. */
export function serviceDefinition(grpcObject: grpc.GrpcObject, name: string): grpc.ServiceDefinition {
  let node: unknown = grpcObject;
  for (const part of name.split('.')) node = (node as Record<string, unknown>)[part];
  return (node as grpc.ServiceClientConstructor).service;
}
