/**
 * Why a gRPC resolver could not give its field a value. The resolver turns
 * it into a GraphQL error on the field: `code` and, for a gRPC status,
 * `grpcCode` go into its extensions.
 */
import * as grpc from '@grpc/grpc-js';
import { GraphQLError } from 'graphql';

export class GrpcFailure extends Error {
  constructor(
    /**
     * The gRPC status name of a failed call (NOT_FOUND, UNAVAILABLE,
     * DEADLINE_EXCEEDED, ...), or the resolver's own: GRPC_DESCRIPTOR_UNAVAILABLE
     * (no reflection, no such service or method), GRPC_BAD_REQUEST (the
     * rendered message does not fit the request type), GRPC_TYPE_MISMATCH (the
     * response cannot be the field's GraphQL type).
     */
    readonly code: string,
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
    return new GraphQLError(this.message, {
      extensions: { code: this.code, ...(this.grpcCode !== undefined ? { grpcCode: this.grpcCode } : {}) },
    });
  }
}
