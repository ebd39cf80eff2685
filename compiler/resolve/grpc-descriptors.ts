/**
 * The gRPC services a GraphQLApi's resolvers call, as its protoDescriptorBin
 * gives them: the descriptor set decoded, and whether a service has a method.
 */
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';

/** A base64 FileDescriptorSet, decoded and loaded, or why it is not one. */
export function decodeDescriptorSet(text: string): { base64: string; root: protobuf.Root } | { problem: string } {
  const compact = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) return { problem: 'is not base64' };
  const bytes = Buffer.from(compact, 'base64');
  let root: protobuf.Root;
  try {
    const set = descriptor.FileDescriptorSet.decode(bytes) as unknown as { file?: unknown[] };
    if (!set.file || set.file.length === 0) return { problem: 'holds no proto files (an empty FileDescriptorSet)' };
    // fromDescriptor is added to Root by protobufjs/ext/descriptor, outside protobufjs' own types.
    root = (protobuf.Root as unknown as { fromDescriptor(set: unknown): protobuf.Root }).fromDescriptor(set);
    root.resolveAll();
  } catch (err) {
    return { problem: `is not a FileDescriptorSet protobufjs can load: ${(err as Error).message}` };
  }
  return { base64: bytes.toString('base64'), root };
}

export function methodProblem(root: protobuf.Root, serviceName: string, methodName: string): string | undefined {
  let service: protobuf.Service;
  try {
    service = root.lookupService(serviceName);
  } catch {
    return `service "${serviceName}" is not in protoDescriptorBin`;
  }
  if (!service.methods[methodName])
    return `service "${serviceName}" has no method "${methodName}" (methods: ${Object.keys(service.methods).join(', ') || 'none'})`;
  return undefined;
}
