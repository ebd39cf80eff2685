/**
 * passThroughAuth over HTTP: a POST to the service's URL with the request
 * headers the config allows and the headers it adds; a JSON body with the
 * state, the original body, the filter metadata and the config when the
 * config asks for them (none: an empty body). 200 allows the request, with
 * the response headers the config lets upstream (appended or overwriting)
 * and to the client, and the state the service returns when
 * readStateFromResponse is set. A 5xx counts as the service failing; any
 * other status is the client's answer, with the headers the config lets
 * through on denial. One keep-alive agent per origin and pool settings
 * (the module keeps them).
 */
import { Agent, request as send } from 'undici';
import { allow, deny, type AuthRequest, type Header, type ServiceAnswer } from '../module.js';
import { decodeStruct } from '../struct.js';
import type { TlsSettings } from './pass-through-tls.js';

export interface HttpSettings {
  url: string;
  timeoutMs: number;
  /** The longest wait for the response headers once the request is written; 0: none but timeoutMs. */
  responseHeaderTimeoutMs: number;
  /** The client's connections: at most maxConns at once, an idle one closed after idleTimeoutMs. */
  pool: { maxConns: number; idleTimeoutMs: number };
  /** Set: TLS to the service (the URL is https://). */
  tls?: TlsSettings;
  request: {
    allowedHeaders: string[];
    headersToAdd: [string, string][];
    passThroughState: boolean;
    passThroughFilterMetadata: boolean;
    passThroughBody: boolean;
  };
  response: {
    allowedUpstreamHeaders: string[];
    allowedUpstreamHeadersToOverwrite: string[];
    allowedClientHeadersOnDenied: string[];
    allowedClientHeadersOnSuccess: string[];
    readStateFromResponse: boolean;
  };
}

export interface HttpService {
  check(s: HttpSettings, config: Record<string, unknown> | undefined): (request: AuthRequest) => Promise<ServiceAnswer>;
  close(): void;
}

type ResponseHeaders = Record<string, string | string[] | undefined>;

/** The response headers named in `names`, each value its own header. */
function picked(headers: ResponseHeaders, names: string[], append: boolean): Header[] {
  return names.flatMap((name) => {
    const v = headers[name];
    return (v === undefined ? [] : Array.isArray(v) ? v : [v]).map((value) => ({
      key: name,
      value,
      ...(append ? { append: true } : {}),
    }));
  });
}

function requestBody(
  s: HttpSettings,
  config: Record<string, unknown> | undefined,
  request: AuthRequest,
): string | undefined {
  const { passThroughState, passThroughBody, passThroughFilterMetadata } = s.request;
  if (!passThroughState && !passThroughBody && !passThroughFilterMetadata && !config) return undefined;
  return JSON.stringify({
    ...(passThroughBody ? { body: request.body } : {}),
    ...(passThroughState ? { state: request.state } : {}),
    ...(passThroughFilterMetadata
      ? {
          filterMetadata: Object.fromEntries(
            Object.entries(request.filterMetadata).map(([k, v]) => [k, decodeStruct(v)]),
          ),
        }
      : {}),
    ...(config ? { config } : {}),
  });
}

export function httpPassThrough(pool: HttpSettings['pool'], tls: TlsSettings | undefined): HttpService {
  // keepAliveMaxTimeout caps a longer Keep-Alive hint from the service too.
  const agent = new Agent({
    connections: pool.maxConns,
    keepAliveTimeout: pool.idleTimeoutMs,
    keepAliveMaxTimeout: pool.idleTimeoutMs,
    ...(tls ? { connect: tls } : {}),
  });
  return {
    check(s, config) {
      return async (request) => {
        const headers: Record<string, string> = {};
        for (const name of s.request.allowedHeaders)
          if (request.headers[name] !== undefined) headers[name] = request.headers[name]!;
        for (const [name, value] of s.request.headersToAdd) headers[name] = value;
        const body = requestBody(s, config, request);
        if (body !== undefined) headers['content-type'] = 'application/json';
        let status: number;
        let answerHeaders: ResponseHeaders;
        let text: string;
        try {
          const res = await send(s.url, {
            method: 'POST',
            headers,
            body,
            dispatcher: agent,
            signal: AbortSignal.timeout(s.timeoutMs),
            // undici's timer runs from the request's last byte to the end of the response headers.
            ...(s.responseHeaderTimeoutMs ? { headersTimeout: s.responseHeaderTimeoutMs } : {}),
          });
          status = res.statusCode;
          answerHeaders = res.headers;
          text = await res.body.text();
        } catch (err) {
          const e = err as Error;
          return {
            failed:
              e.name === 'TimeoutError'
                ? `no answer within ${s.timeoutMs} ms`
                : (e as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT'
                  ? `no response headers within ${s.responseHeaderTimeoutMs} ms of the request`
                  : `unreachable (${(e.cause as Error | undefined)?.message ?? e.message})`,
          };
        }
        if (status >= 500) return { failed: `answered ${status}` };
        if (status !== 200)
          return deny(status, `denied by the pass-through service (${status})`, {
            headers: picked(answerHeaders, s.response.allowedClientHeadersOnDenied, false),
          });
        let state: Record<string, unknown> | undefined;
        if (s.response.readStateFromResponse) {
          try {
            const parsed = JSON.parse(text) as { state?: unknown };
            if (typeof parsed.state !== 'object' || parsed.state === null || Array.isArray(parsed.state))
              throw new Error('no "state" object');
            state = parsed.state as Record<string, unknown>;
          } catch (err) {
            return deny(401, `the pass-through service's state could not be read: ${(err as Error).message}`);
          }
        }
        const responseHeaders = picked(answerHeaders, s.response.allowedClientHeadersOnSuccess, false);
        return allow({
          headers: [
            ...picked(answerHeaders, s.response.allowedUpstreamHeaders, true),
            ...picked(answerHeaders, s.response.allowedUpstreamHeadersToOverwrite, false),
          ],
          ...(responseHeaders.length ? { responseHeaders } : {}),
          ...(state ? { state } : {}),
        });
      };
    },
    close: () => void agent.close().catch(() => undefined),
  };
}
