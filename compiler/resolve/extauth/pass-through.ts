/**
 * Gloo's `passThroughAuth` config: exactly one of grpc (host:port) and http
 * (an http:// or https:// URL), each with its TLS (./pass-through-tls.ts); connectionTimeout in whole milliseconds, at most the
 * sidecar's cap; header names lowercase, as Envoy hands them over.
 */
import { hostPortProblem, httpUrlProblem, MAX_TIMEOUT_MS } from '../../../contract/extauth.js';
import { parseDuration } from '../../../contract/proto3-json.js';
import { fieldError, quote, type Diagnostic, type FieldPath } from '../../diagnostics.js';
import type { PassThroughIR } from '../../ir/model.js';
import type { PassThroughAuthSpec } from '../../kinds/extauth/pass-through.js';
import type { Resource } from '../../validate/validate.js';
import type { Lookups } from '../lookups.js';
import { passThroughTls } from './pass-through-tls.js';

const lower = (names: string[] | undefined) => names?.map((n) => n.toLowerCase());

export function resolvePassThrough(
  ac: Resource,
  path: FieldPath,
  spec: PassThroughAuthSpec,
  lookups: Lookups,
  diagnostics: Diagnostic[],
): PassThroughIR | undefined {
  let ok = true;
  const fail = (at: FieldPath, message: string, hint: string) => {
    diagnostics.push(fieldError('resolve', ac.origin, at, message, hint));
    ok = false;
  };
  const timeoutMs = (value: string | undefined, at: FieldPath): number | undefined => {
    if (value === undefined) return undefined;
    const nanos = parseDuration(value)!;
    if (nanos % 1_000_000n !== 0n || nanos / 1_000_000n > BigInt(MAX_TIMEOUT_MS))
      fail(
        at,
        `"${value}" is not a whole number of milliseconds up to ${MAX_TIMEOUT_MS / 1000}s`,
        'e.g. "2s" or "0.250s"',
      );
    return Number(nanos / 1_000_000n);
  };
  if (!spec.grpc === !spec.http) {
    fail(
      path,
      spec.grpc ? 'sets both grpc and http' : 'sets neither grpc nor http',
      'set grpc.address (a server speaking envoy.service.auth.v3.Authorization) or http.url',
    );
    return undefined;
  }
  const ir: PassThroughIR = {
    failureModeAllow: spec.failureModeAllow ?? false,
    ...(spec.config ? { config: spec.config } : {}),
  };
  if (spec.grpc) {
    const at = [...path, 'grpc'];
    const problem = hostPortProblem(spec.grpc.address);
    if (problem)
      fail([...at, 'address'], `${quote(spec.grpc.address)} ${problem}`, 'e.g. auth.team.svc.cluster.local:9001');
    const t = timeoutMs(spec.grpc.connectionTimeout, [...at, 'connectionTimeout']);
    const tls =
      spec.grpc.tlsConfig && passThroughTls(ac, [...at, 'tlsConfig'], spec.grpc.tlsConfig, lookups, diagnostics);
    if (spec.grpc.tlsConfig && !tls) ok = false;
    ir.grpc = { address: spec.grpc.address, ...(t !== undefined ? { timeoutMs: t } : {}), ...(tls ? { tls } : {}) };
  } else {
    const h = spec.http!;
    const at = [...path, 'http'];
    const problem = httpUrlProblem(h.url);
    if (problem)
      fail([...at, 'url'], `${quote(h.url)} ${problem}`, 'e.g. http://auth.team.svc.cluster.local:8080/check');
    const t = timeoutMs(h.connectionTimeout, [...at, 'connectionTimeout']);
    const tls = h.tlsConfig && passThroughTls(ac, [...at, 'tlsConfig'], h.tlsConfig, lookups, diagnostics);
    if (h.tlsConfig && !tls) ok = false;
    if (h.tlsConfig && !problem && !h.url.startsWith('https://'))
      fail(
        [...at, 'url'],
        `${quote(h.url)} is plain HTTP, but tlsConfig asks for TLS`,
        'write the https:// URL of the service, or remove tlsConfig',
      );
    const headerTimeout = timeoutMs(h.responseHeaderTimeout, [...at, 'responseHeaderTimeout']);
    const idle = timeoutMs(h.connectionPool?.idleTimeout, [...at, 'connectionPool', 'idleTimeout']);
    const pool = {
      ...(h.connectionPool?.maxConns ? { maxConns: h.connectionPool.maxConns } : {}),
      ...(idle ? { idleTimeoutMs: idle } : {}),
    };
    const rq = h.request;
    const rs = h.response;
    ir.http = {
      url: h.url,
      ...(t !== undefined ? { timeoutMs: t } : {}),
      ...(headerTimeout ? { responseHeaderTimeoutMs: headerTimeout } : {}),
      ...(Object.keys(pool).length ? { connectionPool: pool } : {}),
      ...(tls ? { tls } : {}),
      ...(rq
        ? {
            request: {
              ...rq,
              allowedHeaders: lower(rq.allowedHeaders),
              headersToAdd:
                rq.headersToAdd &&
                Object.fromEntries(Object.entries(rq.headersToAdd).map(([k, v]) => [k.toLowerCase(), v])),
            },
          }
        : {}),
      ...(rs
        ? {
            response: {
              ...rs,
              allowedUpstreamHeaders: lower(rs.allowedUpstreamHeaders),
              allowedClientHeadersOnDenied: lower(rs.allowedClientHeadersOnDenied),
              allowedUpstreamHeadersToOverwrite: lower(rs.allowedUpstreamHeadersToOverwrite),
              allowedClientHeadersOnSuccess: lower(rs.allowedClientHeadersOnSuccess),
            },
          }
        : {}),
    };
  }
  return ok ? ir : undefined;
}
