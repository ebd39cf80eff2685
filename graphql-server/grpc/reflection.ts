/**
 * A gRPC server reflection client: the FileDescriptorProtos that define a
 * service and everything they import, asked of the upstream itself
 * (grpc.reflection.v1.ServerReflection, or v1alpha where v1 is not served).
 * The reflection messages are declared here (only the fields used) so that
 * the sidecar needs no .proto file at run time.
 */
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import { GrpcFailure } from './failure.js';

const messages = protobuf.Root.fromJSON({
  nested: {
    ServerReflectionRequest: {
      fields: {
        host: { type: 'string', id: 1 },
        file_by_filename: { type: 'string', id: 3 },
        file_containing_symbol: { type: 'string', id: 4 },
      },
    },
    ServerReflectionResponse: {
      fields: {
        file_descriptor_response: { type: 'FileDescriptorResponse', id: 4 },
        error_response: { type: 'ErrorResponse', id: 7 },
      },
    },
    FileDescriptorResponse: { fields: { file_descriptor_proto: { rule: 'repeated', type: 'bytes', id: 1 } } },
    ErrorResponse: { fields: { error_code: { type: 'int32', id: 1 }, error_message: { type: 'string', id: 2 } } },
  },
});
const Request = messages.lookupType('ServerReflectionRequest');
const Response = messages.lookupType('ServerReflectionResponse');

interface ReflectionRequest {
  file_by_filename?: string;
  file_containing_symbol?: string;
}

interface ReflectionResponse {
  file_descriptor_response?: { file_descriptor_proto: Uint8Array[] };
  error_response?: { error_code: number; error_message: string };
}

/** A decoded google.protobuf.FileDescriptorProto (what Root.fromDescriptor reads). */
export interface FileDescriptor {
  name: string;
  dependency: string[];
}

const VERSIONS = ['grpc.reflection.v1', 'grpc.reflection.v1alpha'];

const serialize = (r: ReflectionRequest) => Buffer.from(Request.encode(r).finish());
const deserialize = (b: Buffer) => Response.decode(b) as unknown as ReflectionResponse;

/** One reflection stream: the file holding `symbol`, then each import not yet received, until none is missing. */
function ask(
  client: grpc.Client,
  version: string,
  symbol: string,
  deadline: Date,
  cluster: string,
): Promise<FileDescriptor[]> {
  return new Promise((resolve, reject) => {
    const call = client.makeBidiStreamRequest(
      `/${version}.ServerReflection/ServerReflectionInfo`,
      serialize,
      deserialize,
      new grpc.Metadata(),
      { deadline },
    );
    const files = new Map<string, FileDescriptor>();
    const asked = new Set<string>();
    let pending = 0;
    const send = (req: ReflectionRequest) => {
      pending++;
      call.write(req);
    };
    const fail = (err: Error) => {
      call.cancel();
      reject(err);
    };
    call.on('data', (res: ReflectionResponse) => {
      pending--;
      if (res.error_response) {
        const { error_code: code, error_message: text } = res.error_response;
        const what = files.size === 0 ? `has no service "${symbol}"` : `does not serve a file "${symbol}" imports`;
        return fail(
          new GrpcFailure(
            'GRPC_DESCRIPTOR_UNAVAILABLE',
            `upstream ${cluster} ${what} (server reflection answered ${grpc.status[code] ?? code}: ${text})`,
          ),
        );
      }
      for (const bytes of res.file_descriptor_response?.file_descriptor_proto ?? []) {
        const file = descriptor.FileDescriptorProto.decode(bytes) as unknown as FileDescriptor;
        if (!files.has(file.name)) files.set(file.name, file);
      }
      for (const file of files.values()) {
        for (const dep of file.dependency) {
          if (files.has(dep) || asked.has(dep)) continue;
          asked.add(dep);
          send({ file_by_filename: dep });
        }
      }
      if (pending === 0) {
        call.end();
        resolve([...files.values()]);
      }
    });
    call.on('error', reject);
    send({ file_containing_symbol: symbol });
  });
}

/**
 * The files defining `service` and their imports, from one upstream host.
 * Throws GrpcFailure: GRPC_DESCRIPTOR_UNAVAILABLE when the upstream has no
 * reflection or not the service, the call's status otherwise (UNAVAILABLE
 * for a host that is down).
 */
export async function reflectService(
  client: grpc.Client,
  service: string,
  timeoutMs: number,
  cluster: string,
): Promise<FileDescriptor[]> {
  for (const version of VERSIONS) {
    try {
      return await ask(client, version, service, new Date(Date.now() + timeoutMs), cluster);
    } catch (err) {
      if (err instanceof GrpcFailure) throw err;
      const e = err as grpc.ServiceError;
      if (e.code === grpc.status.UNIMPLEMENTED) continue;
      throw GrpcFailure.fromStatus(e, `server reflection on upstream ${cluster}`, timeoutMs);
    }
  }
  throw new GrpcFailure(
    'GRPC_DESCRIPTOR_UNAVAILABLE',
    `upstream ${cluster} does not offer gRPC server reflection (grpc.reflection.v1 nor v1alpha): enable reflection on the service, or give the GraphQLApi a protoDescriptorBin`,
  );
}
