/**
 * passThroughAuth over gRPC: the team's server speaks Envoy's
 * envoy.service.auth.v3.Authorization and is sent the CheckRequest exactly
 * as Envoy sent it, with the state of the configs allowed before this one
 * and the config's `config` added to its filter metadata under Gloo's keys
 * (`solo.auth.passthrough`, `solo.auth.passthrough.config`). Its
 * CheckResponse is the config's verdict: OK with its headers, removed
 * headers, response headers and state (dynamic metadata under
 * `solo.auth.passthrough`), or its denial with its status, headers and
 * body. A server error status (UNKNOWN, DEADLINE_EXCEEDED, INTERNAL,
 * UNAVAILABLE, DATA_LOSS) counts as the service failing.
 */
import * as grpc from '@grpc/grpc-js';
import { createSecureContext } from 'node:tls';
import { PASS_THROUGH_CONFIG_KEY, PASS_THROUGH_STATE_KEY } from '../../contract/extauth.js';
import { allow, deny, type AuthRequest, type Header, type ServiceAnswer } from '../module.js';
import { messageType, statusCodeOf } from '../protos.js';
import { structJson, structObject } from '../struct.js';
import type { TlsSettings } from './pass-through-tls.js';

export interface GrpcSettings {
  /** host:port */
  address: string;
  timeoutMs: number;
  /** Set: TLS to the server. */
  tls?: TlsSettings;
}

export interface GrpcService {
  /** The call of one config: its timeout, its `config`. */
  check(s: GrpcSettings, config: Record<string, unknown> | undefined): (request: AuthRequest) => Promise<ServiceAnswer>;
  close(): void;
}

const CHECK_PATH = '/envoy.service.auth.v3.Authorization/Check';
const SERVER_ERRORS = new Set([2, 4, 13, 14, 15]);

interface HeaderOption {
  header?: { key?: string; value?: string };
  append?: { value?: boolean } | null;
}

interface CheckResponse {
  status?: { code?: number; message?: string } | null;
  ok_response?: {
    headers?: HeaderOption[];
    headers_to_remove?: string[];
    response_headers_to_add?: HeaderOption[];
  } | null;
  denied_response?: { status?: { code?: string | number } | null; headers?: HeaderOption[]; body?: string } | null;
  dynamic_metadata?: { fields?: Record<string, unknown> } | null;
}

const headers = (options: HeaderOption[] | undefined): Header[] =>
  (options ?? [])
    .filter((o) => o.header?.key)
    .map((o) => ({
      key: o.header!.key!.toLowerCase(),
      value: o.header!.value ?? '',
      ...(o.append?.value ? { append: true } : {}),
    }));

/** The server's CheckResponse as this config's answer. */
export function answerOf(response: CheckResponse): ServiceAnswer {
  const code = response.status?.code ?? 0;
  if (code === 0) {
    const ok = response.ok_response ?? {};
    const state = structJson(response.dynamic_metadata as Parameters<typeof structJson>[0])[PASS_THROUGH_STATE_KEY];
    const responseHeaders = headers(ok.response_headers_to_add);
    return allow({
      headers: headers(ok.headers),
      removeHeaders: (ok.headers_to_remove ?? []).map((h) => h.toLowerCase()),
      ...(responseHeaders.length ? { responseHeaders } : {}),
      ...(state && typeof state === 'object' && !Array.isArray(state) ? { state } : {}),
    });
  }
  if (SERVER_ERRORS.has(code))
    return { failed: `answered gRPC status ${code}${response.status?.message ? ` (${response.status.message})` : ''}` };
  const denied = response.denied_response ?? {};
  // Envoy's default for a denial without a status.
  const status = statusCodeOf(denied.status?.code) ?? 403;
  return deny(status, `denied by the pass-through service (gRPC status ${code})`, {
    headers: headers(denied.headers),
    body: denied.body ?? '',
  });
}

interface DecodedCheckRequest {
  attributes?: { metadata_context?: { filter_metadata?: Record<string, unknown> } | null } | null;
}

/**
 * Envoy's CheckRequest with entries added to its filter metadata, decoded
 * and encoded again: appending a second encoded message would be merged by
 * a C++ or Go server but replace the attributes in protobufjs (a Node server).
 */
function withFilterMetadata(raw: Uint8Array, extra: Record<string, unknown>): Buffer {
  const type = messageType('envoy.service.auth.v3.CheckRequest');
  const decoded = type.deserialize(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)) as DecodedCheckRequest;
  const attributes = decoded.attributes ?? {};
  const context = attributes.metadata_context ?? {};
  return type.serialize({
    ...decoded,
    attributes: {
      ...attributes,
      metadata_context: { ...context, filter_metadata: { ...context.filter_metadata, ...extra } },
    },
  });
}

export function grpcPassThrough(address: string, tls: TlsSettings | undefined): GrpcService {
  const credentials = tls
    ? grpc.credentials.createFromSecureContext(createSecureContext(tls))
    : grpc.credentials.createInsecure();
  // Reconnect soon after the server comes back (grpc-js waits up to 120 s by default).
  const client = new grpc.Client(address, credentials, {
    'grpc.initial_reconnect_backoff_ms': 250,
    'grpc.max_reconnect_backoff_ms': 1000,
  });
  const responseType = messageType('envoy.service.auth.v3.CheckResponse');
  const identity = (b: Buffer) => b;
  const decode = (b: Buffer) => responseType.deserialize(b) as CheckResponse;
  return {
    check(s, config) {
      const configMetadata = config ? { [PASS_THROUGH_CONFIG_KEY]: structObject(config) } : {};
      return (request) => {
        const withState = Object.keys(request.state).length
          ? { [PASS_THROUGH_STATE_KEY]: structObject(request.state as Record<string, unknown>) }
          : {};
        const extra = { ...configMetadata, ...withState };
        const bytes = Object.keys(extra).length
          ? withFilterMetadata(request.raw, extra)
          : Buffer.from(request.raw.buffer, request.raw.byteOffset, request.raw.byteLength);
        return new Promise<ServiceAnswer>((resolve) => {
          client.makeUnaryRequest(
            CHECK_PATH,
            identity,
            decode,
            bytes,
            { deadline: Date.now() + s.timeoutMs },
            (err, response) => {
              if (err)
                resolve({
                  failed:
                    err.code === grpc.status.DEADLINE_EXCEEDED
                      ? `no answer within ${s.timeoutMs} ms`
                      : `unreachable (${grpc.status[err.code] ?? err.code})`,
                });
              else resolve(answerOf(response!));
            },
          );
        });
      };
    },
    close: () => client.close(),
  };
}
