/** A tcpGateway's options: its tcp_proxy settings, connection limit and connection token bucket, durations checked. */
import { parseDuration } from '../../contract/proto3-json.js';
import { fieldError, quote, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import type { TcpProxyOptionsIR } from '../ir/tcp-options.js';
import type { TcpListenerOptionsSpec } from '../kinds/tcp-options.js';
import { OptionReport, tokenBucket } from './option-report.js';

/** undefined: nothing set (or only what was reported). */
export function tcpProxyOptions(
  spec: TcpListenerOptionsSpec | undefined,
  origin: Origin,
  path: FieldPath,
  diagnostics: Diagnostic[],
): TcpProxyOptionsIR | undefined {
  if (!spec) return undefined;
  const duration = (text: string | undefined, at: FieldPath, min: bigint, hint: string) => {
    if (text === undefined) return undefined;
    const nanos = parseDuration(text);
    if (nanos !== undefined && nanos >= min) return text;
    diagnostics.push(
      fieldError(
        'resolve',
        origin,
        at,
        `${quote(text)} is ${nanos === undefined ? 'not a duration' : 'too short'}`,
        hint,
      ),
    );
    return undefined;
  };
  const p = spec.tcpProxySettings;
  const settings = [...path, 'tcpProxySettings'];
  const idleTimeout = duration(
    p?.idleTimeout,
    [...settings, 'idleTimeout'],
    0n,
    'write a duration, e.g. "300s" ("0s": never)',
  );
  const flush = duration(
    p?.accessLogFlushInterval,
    [...settings, 'accessLogFlushInterval'],
    1_000_000n,
    'write at least "0.001s": Envoy flushes access logs at most every millisecond',
  );
  const limit = spec.connectionLimit;
  const delay = duration(
    limit?.delayBeforeClose,
    [...path, 'connectionLimit', 'delayBeforeClose'],
    0n,
    'write a number with a unit, e.g. "1s" or "250ms"',
  );
  const bucket = spec.localRatelimit
    ? tokenBucket(spec.localRatelimit, [...path, 'localRatelimit'], new OptionReport(origin, diagnostics))
    : undefined;
  const tunnel = p?.tunnelingConfig;
  const out: TcpProxyOptionsIR = {
    ...(p?.maxConnectAttempts !== undefined ? { maxConnectAttempts: p.maxConnectAttempts } : {}),
    ...(idleTimeout !== undefined ? { idleTimeout } : {}),
    ...(flush !== undefined ? { accessLogFlushInterval: flush } : {}),
    ...(tunnel
      ? {
          tunnel: {
            hostname: tunnel.hostname,
            headers: (tunnel.headersToAdd ?? []).map((h) => ({
              key: h.header.key,
              value: h.header.value,
              append: h.append ?? true,
            })),
          },
        }
      : {}),
    ...(limit?.maxActiveConnections !== undefined
      ? { connectionLimit: { maxConnections: limit.maxActiveConnections, ...(delay ? { delay } : {}) } }
      : {}),
    ...(bucket ? { localRateLimit: bucket } : {}),
  };
  return Object.keys(out).length > 0 ? out : undefined;
}
