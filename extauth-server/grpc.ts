/**
 * `envoy.service.auth.v3.Authorization/Check` over @grpc/grpc-js. Reads what
 * Envoy sends (lowercase header keys in attributes.request.http.headers,
 * context_extensions.config_ref) and answers every verdict in the response
 * itself, so Envoy passes our status (including 5xx and redirects) to the
 * client instead of its own 403 for a failed call.
 */
import { NO_TRACING, type Tracer } from '../runtime/tracing.js';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { Authorizer } from './authorizer.js';
import type { CheckResult, Metrics } from './metrics.js';
import type { AuthRequest, Header, Verdict } from './module.js';
import { authorizationService, checkRequestView, type CheckRequestView, type HttpRequestView } from './protos.js';

/** google.rpc.Code values carried in CheckResponse.status. */
const RPC = { OK: 0, INTERNAL: 13, UNAVAILABLE: 14, PERMISSION_DENIED: 7, UNAUTHENTICATED: 16 } as const;

/** A denial's metrics result and CheckResponse.status code, by its HTTP status. */
function denialKind(status: number): { result: CheckResult; rpc: number } {
  if (status === 401) return { result: 'unauthenticated', rpc: RPC.UNAUTHENTICATED };
  if (status === 403) return { result: 'forbidden', rpc: RPC.PERMISSION_DENIED };
  if (status === 503) return { result: 'unavailable', rpc: RPC.UNAVAILABLE };
  if (status >= 500) return { result: 'error', rpc: RPC.INTERNAL };
  // A login redirect, or another answer a config gives the client (429, 400, ...): Envoy needs a non-OK code to send it.
  return { result: status >= 300 && status < 400 ? 'redirect' : 'denied', rpc: RPC.PERMISSION_DENIED };
}

const headerOption = (h: Header) => ({
  header: { key: h.key, value: h.value },
  append_action: h.append ? 'APPEND_IF_EXISTS_OR_ADD' : 'OVERWRITE_IF_EXISTS_OR_ADD',
});

/** The CheckResponse of a verdict (proto-loader's object form). */
export function checkResponse(verdict: Verdict): Record<string, unknown> {
  if (verdict.kind === 'allow') {
    return {
      status: { code: RPC.OK },
      ok_response: {
        headers: verdict.headers.map(headerOption),
        headers_to_remove: verdict.removeHeaders,
        ...(verdict.responseHeaders?.length
          ? { response_headers_to_add: verdict.responseHeaders.map(headerOption) }
          : {}),
      },
    };
  }
  return {
    status: { code: denialKind(verdict.status).rpc, message: verdict.reason },
    denied_response: {
      status: { code: verdict.status },
      headers: verdict.headers.map(headerOption),
      body: verdict.body,
    },
  };
}

/** Never the Authorization header, a key or a password; the path without its query, which may carry tokens. */
function logFields(configRef: string | undefined, result: CheckResult, http: HttpRequestView) {
  // Absent strings decode as '': left out of the line, as absent.
  return {
    configRef,
    result,
    host: http.host || undefined,
    path: http.path ? http.path.split('?')[0] : undefined,
    method: http.method || undefined,
  };
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const NO_STATE: Readonly<Record<string, unknown>> = Object.freeze({});
const NO_METADATA: Readonly<Record<string, Uint8Array>> = Object.freeze({});

/** What the modules read of a decoded CheckRequest. */
export function authRequest(view: CheckRequestView): AuthRequest {
  const attrs = view.attributes ?? {};
  const http = attrs.request?.http ?? {};
  return {
    configRef: attrs.context_extensions?.config_ref ?? '',
    headers: http.headers ?? NO_HEADERS,
    method: http.method ?? '',
    path: http.path ?? '',
    host: http.host ?? '',
    body: http.body ?? '',
    filterMetadata: attrs.metadata_context?.filter_metadata ?? NO_METADATA,
    raw: view.raw,
    state: NO_STATE,
  };
}

/** A check as a server span under the request's: its config, and the status it answers. */
function tracedCheck(tracer: Tracer, authorizer: Authorizer, request: AuthRequest): ReturnType<Authorizer['check']> {
  return tracer.incoming(
    'ext_authz check',
    request.headers,
    (span) => {
      const statusOf = (v: Verdict) => {
        span.setAttribute('sluice.extauth.status', v.kind === 'allow' ? 200 : v.status);
        return v;
      };
      const verdict = authorizer.check(request);
      return verdict instanceof Promise ? verdict.then(statusOf) : statusOf(verdict);
    },
    { 'sluice.extauth.config': request.configRef, 'url.path': request.path.split('?')[0]! },
  );
}

export function checkHandler(
  authorizer: Authorizer,
  logger: Logger,
  metrics?: Metrics,
  tracer: Tracer = NO_TRACING,
): grpc.handleUnaryCall<CheckRequestView, unknown> {
  // A verdict a module gives again and again (an allowed user's) is made into a response once, and encoded once (checkService).
  const responses = new WeakMap<Verdict, Record<string, unknown>>();
  const respond = (verdict: Verdict) => {
    let response = responses.get(verdict);
    if (!response) responses.set(verdict, (response = checkResponse(verdict)));
    return response;
  };
  return (call, callback) => {
    const request = authRequest(call.request);
    const configRef = request.configRef || undefined;
    const answer = (verdict: Verdict) => {
      // Caught here, not by another promise per check: a throw would be an unhandled rejection.
      try {
        // Answered first: counting and logging are not on the path of the request Envoy holds.
        callback(null, respond(verdict));
        const result = verdict.kind === 'allow' ? 'ok' : denialKind(verdict.status).result;
        metrics?.countCheck(result);
        const http = call.request.attributes?.request?.http ?? {};
        // An allowed check is logged at debug, off by default: its fields are built only when the line is written.
        if (verdict.kind === 'allow') {
          if (logger.isLevelEnabled('debug'))
            logger.debug({ ...logFields(configRef, result, http), identity: verdict.identity }, 'check allowed');
        } else if (verdict.status >= 500)
          logger.warn(
            { ...logFields(configRef, result, http), status: verdict.status, reason: verdict.reason },
            'check failed',
          );
        else
          logger.info(
            { ...logFields(configRef, result, http), status: verdict.status, reason: verdict.reason },
            'check denied',
          );
      } catch (err) {
        logger.error({ err: (err as Error).message }, 'answering a check failed');
      }
    };
    const internal = (err: unknown) =>
      answer({ kind: 'deny', status: 500, headers: [], body: '', reason: `internal error: ${(err as Error).message}` });
    let verdict;
    try {
      // The check joins the request's trace (Envoy's traceparent or B3 among the headers it sends).
      verdict = tracer.on ? tracedCheck(tracer, authorizer, request) : authorizer.check(request);
    } catch (err) {
      return internal(err);
    }
    // One promise per check at most, not a .catch() and a .then().
    if (verdict instanceof Promise) verdict.then(answer, internal);
    else answer(verdict);
  };
}

/**
 * The Authorization service: requests decoded into the fields the sidecar
 * reads, responses encoded once per response object (a module's repeated
 * verdicts keep theirs).
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
  tracer: Tracer = NO_TRACING,
): Promise<{ server: grpc.Server; port: number }> {
  const server = new grpc.Server();
  server.addService(checkService(), { Check: checkHandler(authorizer, logger, metrics, tracer) });
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { server, port: bound };
}
