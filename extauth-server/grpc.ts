/**
 * `envoy.service.auth.v3.Authorization/Check` over @grpc/grpc-js. Reads what
 * Envoy sends (lowercase header keys in attributes.request.http.headers,
 * context_extensions.config_ref) and answers every decision in the response
 * itself, so Envoy passes our status (including 5xx) to the client instead of
 * its own 403 for a failed call.
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { Authorizer, Decision } from './authorizer.js';
import type { CheckResult, Metrics } from './metrics.js';
import { BoundedMemo } from './memo.js';
import { authorizationService, checkRequestView, type CheckRequestView, type HttpRequestView } from './protos.js';
import { USER_ID_HEADER, basicChallenge } from '../contract/extauth.js';

/** google.rpc.Code values carried in CheckResponse.status. */
const RPC = { OK: 0, INTERNAL: 13, UNAVAILABLE: 14, PERMISSION_DENIED: 7, UNAUTHENTICATED: 16 } as const;

const RESULT: Record<401 | 403 | 500 | 503, { result: CheckResult; rpc: number }> = {
  401: { result: 'unauthenticated', rpc: RPC.UNAUTHENTICATED },
  403: { result: 'forbidden', rpc: RPC.PERMISSION_DENIED },
  500: { result: 'error', rpc: RPC.INTERNAL },
  503: { result: 'unavailable', rpc: RPC.UNAVAILABLE },
};

/** The DN as an HTTP header value: RFC 4514 allows any byte as `\XX`, which keeps the value ASCII. */
export function asciiDn(dn: string): string {
  return dn.replace(/[^\x20-\x7e]+/g, (run) => [...Buffer.from(run, 'utf8')].map((b) => `\\${b.toString(16).padStart(2, '0')}`).join(''));
}

export function checkResponse(decision: Decision, configRef: string | undefined): Record<string, unknown> {
  if (decision.kind === 'ok') {
    return {
      status: { code: RPC.OK },
      ok_response: {
        // Overwrite: a client-sent x-user-id never reaches the upstream next to ours.
        headers: [{ header: { key: USER_ID_HEADER, value: asciiDn(decision.userDn) }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' }],
        // The user's LDAP password stays at the gateway, as a JWT does (jwt_authn's forward: false).
        headers_to_remove: ['authorization'],
      },
    };
  }
  const headers =
    decision.status === 401
      ? [{ header: { key: 'www-authenticate', value: basicChallenge(configRef ?? '') }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' }]
      : [];
  return {
    status: { code: RESULT[decision.status].rpc, message: decision.reason },
    denied_response: { status: { code: decision.status }, headers, body: '' },
  };
}

/** Never the Authorization header or a password; the path without its query, which may carry tokens. */
function logFields(configRef: string | undefined, result: CheckResult, http: HttpRequestView) {
  // Absent strings decode as '': left out of the line, as absent.
  return { configRef, result, host: http.host || undefined, path: http.path ? http.path.split('?')[0] : undefined, method: http.method || undefined };
}

export function checkHandler(authorizer: Authorizer, logger: Logger, metrics?: Metrics): grpc.handleUnaryCall<CheckRequestView, unknown> {
  // An allowed user's response is the same every time: made once per DN, and encoded once (checkService).
  const allowed = new BoundedMemo<string, Record<string, unknown>>(10_000, (userDn) => checkResponse({ kind: 'ok', userDn }, undefined));
  const respond = (decision: Decision, configRef: string | undefined) => (decision.kind === 'ok' ? allowed.get(decision.userDn) : checkResponse(decision, configRef));
  return (call, callback) => {
    const attrs = call.request.attributes ?? {};
    const configRef = attrs.context_extensions?.config_ref;
    const http = attrs.request?.http ?? {};
    const answer = (decision: Decision) => {
      // Caught here, not by another promise per check: a throw would be an unhandled rejection.
      try {
        // Answered first: counting and logging are not on the path of the request Envoy holds.
        callback(null, respond(decision, configRef));
        const result = decision.kind === 'ok' ? 'ok' : RESULT[decision.status].result;
        metrics?.countCheck(result);
        // An allowed check is logged at debug, off by default: its fields are built only when the line is written.
        if (decision.kind === 'ok') {
          if (logger.isLevelEnabled('debug')) logger.debug({ ...logFields(configRef, result, http), userDn: decision.userDn }, 'check allowed');
        } else if (decision.status >= 500) logger.warn({ ...logFields(configRef, result, http), status: decision.status, reason: decision.reason }, 'check failed');
        else logger.info({ ...logFields(configRef, result, http), status: decision.status, reason: decision.reason }, 'check denied');
      } catch (err) {
        logger.error({ err: (err as Error).message }, 'answering a check failed');
      }
    };
    // One promise per check, not a .catch() and a .then().
    authorizer.check(configRef, http.headers?.authorization).then(answer, (err: unknown) => answer({ kind: 'deny', status: 500, reason: `internal error: ${(err as Error).message}` }));
  };
}

/**
 * The Authorization service: requests decoded into the fields the sidecar
 * reads, responses encoded once per response object (the allowed ones are
 * kept per DN).
 */
function checkService(): grpc.ServiceDefinition {
  const service = authorizationService();
  const check = service.Check!;
  const encoded = new WeakMap<object, Buffer>();
  const responseSerialize = (response: object): Buffer => {
    let bytes = encoded.get(response);
    if (!bytes) encoded.set(response, (bytes = check.responseSerialize(response)));
    return bytes;
  };
  return { ...service, Check: { ...check, requestDeserialize: checkRequestView(), responseSerialize } };
}

export async function startGrpcServer(
  authorizer: Authorizer,
  logger: Logger,
  metrics: Metrics | undefined,
  port: number,
  host = '127.0.0.1',
): Promise<{ server: grpc.Server; port: number }> {
  const server = new grpc.Server();
  server.addService(checkService(), { Check: checkHandler(authorizer, logger, metrics) });
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return { server, port: bound };
}
