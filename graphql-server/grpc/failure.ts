/**
 * Why a gRPC resolver could not give its field a value. The resolver turns
 * it into a GraphQL error on the field: `code` and, for a gRPC status,
 * `grpcCode` go into its extensions.
 */
import * as grpc from '@grpc/grpc-js';
import { GraphQLError } from 'graphql';

export type GrpcFailureCode =
  /** Message types not to be had: no server reflection, no such service or method, a descriptor set without them. */
  | 'GRPC_DESCRIPTOR_UNAVAILABLE'
  /** The rendered outgoing message does not fit the request type (unknown field, "abc" for an int32, ...). */
  | 'GRPC_BAD_REQUEST'
  /** The method's response type cannot be the field's GraphQL type (a list field needs one repeated field). */
  | 'GRPC_TYPE_MISMATCH'
  /** The gRPC status name of a failed call, e.g. NOT_FOUND, UNAVAILABLE, DEADLINE_EXCEEDED. */
  | string;

export class GrpcFailure extends Error {
  constructor(
    readonly code: GrpcFailureCode,
    message: string,
    /** The gRPC status code, when the upstream (or the channel) gave one. */
    readonly grpcCode?: number,
    /** The status details as the upstream wrote them: logged, never sent to the client. */
    readonly details?: string,
  ) {
    super(message);
  }

  /** A failed call: the message names what was called and the status, not the upstream's details. */
  static fromStatus(err: grpc.ServiceError, what: string, timeoutMs: number): GrpcFailure {
    const name = grpc.status[err.code] ?? String(err.code);
    const message =
      err.code === grpc.status.UNAVAILABLE
        ? `${what} failed: the upstream is unavailable (UNAVAILABLE)`
        : err.code === grpc.status.DEADLINE_EXCEEDED
          ? `${what} failed: no answer within ${timeoutMs} ms (DEADLINE_EXCEEDED)`
          : `${what} failed with status ${name}`;
    return new GrpcFailure(name, message, err.code, err.details);
  }

  toGraphQLError(): GraphQLError {
    return new GraphQLError(this.message, { extensions: { code: this.code, ...(this.grpcCode !== undefined ? { grpcCode: this.grpcCode } : {}) } });
  }
}
