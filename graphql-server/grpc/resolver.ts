/**
 * gRPC resolvers (Gloo's grpcResolver): a field's value is one unary call
 * `/<service>/<method>` to its upstream, the request message rendered from
 * outgoingMessageJson over the field's arguments, its parent object and the
 * client's headers, the response decoded with the upstream's own message
 * types (server reflection, or the API's protoDescriptorBin). Identical calls
 * within one operation are made once; a failure is an error on that field
 * only, carrying the gRPC status name and code.
 */
import * as grpc from '@grpc/grpc-js';
import { getNullableType, GraphQLError, isLeafType, isListType } from 'graphql';
import protobuf from 'protobufjs';
import { compileJsonTemplate, compileTextTemplate, type TemplateScope } from '../../contract/graphql-templates.js';
import {
  apiLogField,
  type FieldResolver,
  type GrpcResolverConfig,
  type RequestContext,
  type ResolverDeps,
  type ResolverField,
} from '../api.js';
import { GrpcFailure } from './failure.js';
import { checkMessageTemplate, fromMessage, MessageError, toMessage } from './messages.js';
import { grpcServices } from './services.js';

/** The method as resolved against one set of message types. */
interface Method {
  requestType: protobuf.Type;
  responseType: protobuf.Type;
  /** The response field that is the GraphQL field's value, for list and leaf fields; undefined: the whole message. */
  pick?: string;
}

/** Metadata names the resolution may not set: gRPC's own (`grpc-*`) and binary ones (values are text templates). */
function metadataName(name: string, where: string): string {
  const lower = name.toLowerCase();
  if (!/^[0-9a-z_.-]+$/.test(lower))
    throw new Error(
      `${where}: "${name}" is not a valid gRPC metadata name (lower-case letters, digits, _ . -); fix it in the resource`,
    );
  if (lower.startsWith('grpc-') || lower.endsWith('-bin'))
    throw new Error(
      `${where}: metadata "${name}" cannot be set (grpc-* is reserved to gRPC, -bin is binary); remove it from the resource`,
    );
  return lower;
}

export function createGrpcResolver(
  config: GrpcResolverConfig,
  field: ResolverField,
  deps: ResolverDeps,
): FieldResolver {
  // The caller (local.ts) prefixes build errors with the API, the field and the resolution.
  const where = 'gRPC resolver';
  if (!config.serviceName || !config.methodName) throw new Error(`${where}: serviceName and methodName are required`);
  const services = grpcServices(deps);
  const timeoutMs = config.timeoutMs || deps.defaultTimeoutMs;
  const path = `/${config.serviceName}/${config.methodName}`;
  const fieldName = `${field.typeName}.${field.fieldName}`;
  const template = config.outgoingMessageJson ?? {};
  const render = compileJsonTemplate(template);
  const metadata = Object.entries(config.requestMetadata).map(
    ([name, t]) => [metadataName(name, where), compileTextTemplate(t)] as const,
  );
  const fixed = deps.protoDescriptorBin?.length ? services.fromDescriptorSet(deps.protoDescriptorBin) : undefined;

  /** The last set of message types resolved against, and what it gave (roots change only when reflection is asked again). */
  let resolved: { root: protobuf.Root; method: Method } | undefined;

  function resolveMethod(root: protobuf.Root): Method {
    if (resolved?.root === root) return resolved.method;
    const source = fixed ? 'protoDescriptorBin' : `upstream ${config.target.cluster}`;
    let service: protobuf.Service;
    try {
      service = root.lookupService(config.serviceName);
    } catch {
      throw new GrpcFailure('GRPC_DESCRIPTOR_UNAVAILABLE', `${source} has no service "${config.serviceName}"`);
    }
    const m = service.methods[config.methodName];
    if (!m)
      throw new GrpcFailure(
        'GRPC_DESCRIPTOR_UNAVAILABLE',
        `service ${config.serviceName} of ${source} has no method "${config.methodName}" (methods: ${Object.keys(service.methods).join(', ') || 'none'})`,
      );
    if (m.requestStream || m.responseStream)
      throw new GrpcFailure('GRPC_TYPE_MISMATCH', `${path} streams; a GraphQL field can only call a unary method`);
    m.resolve();
    const method: Method = { requestType: m.resolvedRequestType!, responseType: m.resolvedResponseType! };
    try {
      checkMessageTemplate(method.requestType, template);
    } catch (err) {
      throw new GrpcFailure('GRPC_BAD_REQUEST', `outgoingMessageJson: ${(err as Error).message}`);
    }
    method.pick = pickField(method.responseType);
    resolved = { root, method };
    return method;
  }

  /** List and leaf GraphQL fields take the response's only field (e.g. `repeated Product products`); object fields the message. */
  function pickField(response: protobuf.Type): string | undefined {
    const type = getNullableType(field.returnType);
    const list = isListType(type);
    if (!list && !isLeafType(type)) return undefined;
    const only = response.fieldsArray.length === 1 ? response.fieldsArray[0]! : undefined;
    if (only && (list ? only.repeated && !only.map : !only.repeated && !(only.resolvedType instanceof protobuf.Type)))
      return only.name;
    throw new GrpcFailure(
      'GRPC_TYPE_MISMATCH',
      `${fieldName} is ${String(field.returnType)} but ${path} returns ${response.fullName.slice(1)}: a ${list ? 'list' : 'scalar'} field needs a response message with exactly one ${list ? 'repeated' : 'scalar'} field`,
    );
  }

  // With a descriptor set, a method or template that does not fit fails the API's build.
  if (fixed) {
    try {
      resolveMethod(fixed);
    } catch (err) {
      throw new Error(`${where}: ${(err as Error).message}`);
    }
  }

  async function send(
    method: Method,
    request: Buffer,
    md: grpc.Metadata,
    context: RequestContext,
  ): Promise<Record<string, unknown>> {
    let answer: Buffer;
    try {
      answer = await services.call(config.target, path, request, md, timeoutMs, context.signal);
    } catch (err) {
      if (err instanceof GrpcFailure) {
        const log = {
          ...apiLogField(context.logger, deps.api),
          field: fieldName,
          cluster: config.target.cluster,
          method: path,
          code: err.code,
        };
        context.logger.warn(log, 'gRPC upstream call failed');
        if (deps.logSensitiveInfo && err.details)
          context.logger.debug({ ...log, details: err.details }, 'gRPC status details');
        // The upstream no longer has the method as reflected: ask again.
        if (err.grpcCode === grpc.status.UNIMPLEMENTED && !fixed) services.expire(config.target, config.serviceName);
      }
      throw err;
    }
    try {
      return fromMessage(method.responseType, method.responseType.decode(answer));
    } catch (err) {
      throw new GrpcFailure(
        'INTERNAL',
        `${path} on upstream ${config.target.cluster} answered bytes that are not a ${method.responseType.fullName.slice(1)}: ${(err as Error).message}`,
      );
    }
  }

  async function resolve(parent: unknown, args: Record<string, unknown>, context: RequestContext): Promise<unknown> {
    const root = fixed ?? (await services.descriptors(config.target, config.serviceName, timeoutMs));
    let method: Method;
    try {
      method = resolveMethod(root);
    } catch (err) {
      // The upstream may gain the method (a deployment under way): ask again later.
      if (!fixed) services.expire(config.target, config.serviceName);
      throw err;
    }
    const scope: TemplateScope = { args, parent, headers: context.headers };
    let message: Record<string, unknown>;
    try {
      message = toMessage(method.requestType, render(scope));
    } catch (err) {
      if (err instanceof MessageError)
        throw new GrpcFailure(
          'GRPC_BAD_REQUEST',
          `${fieldName}: the request to ${path} does not fit its message type: ${err.message}`,
        );
      throw err;
    }
    const request = Buffer.from(method.requestType.encode(message).finish());
    const md = new grpc.Metadata();
    const sent: string[] = [];
    for (const [name, value] of metadata) {
      const text = value(scope);
      if (text === '') continue;
      md.set(name, text);
      sent.push(name, text);
    }
    const key = `grpc ${config.target.cluster} ${path} ${JSON.stringify(sent)} ${request.toString('base64')}`;
    let pending = context.calls.get(key) as Promise<Record<string, unknown>> | undefined;
    if (!pending) {
      pending = send(method, request, md, context);
      context.calls.set(key, pending);
    }
    const response = await pending;
    return method.pick === undefined ? response : response[method.pick];
  }

  return async (parent, args, context) => {
    try {
      return await resolve(parent, args, context);
    } catch (err) {
      if (err instanceof GrpcFailure) throw err.toGraphQLError();
      throw err instanceof GraphQLError ? err : new GraphQLError(`${fieldName}: ${(err as Error).message}`);
    }
  };
}
