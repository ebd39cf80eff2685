/** `sluice.extauth.v1.PassThroughAuthConfig` (contract/proto/sluice/extauth/v1/pass_through.proto). */
import type { PassThroughIR, PassThroughTlsIR } from '../../ir/model.js';
import type { Json } from '../output.js';

/** Only the fields set, snake_case: proto3 JSON leaves defaults out. */
function snake(o: Record<string, unknown> | undefined): Json | undefined {
  if (!o) return undefined;
  const set = Object.entries(o).filter(
    ([, v]) => v !== undefined && v !== false && !(Array.isArray(v) && v.length === 0),
  );
  return Object.fromEntries(set.map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]));
}

export function compilePassThrough(p: PassThroughIR): Json {
  const timeout = (ms: number | undefined) => (ms !== undefined ? { timeout_ms: ms } : {});
  const tls = (t: PassThroughTlsIR | undefined) => (t ? { tls: snake(t as unknown as Record<string, unknown>) } : {});
  const protocol = p.grpc
    ? { grpc: { address: p.grpc.address, ...timeout(p.grpc.timeoutMs), ...tls(p.grpc.tls) } }
    : {
        http: {
          url: p.http!.url,
          ...timeout(p.http!.timeoutMs),
          ...(p.http!.responseHeaderTimeoutMs ? { response_header_timeout_ms: p.http!.responseHeaderTimeoutMs } : {}),
          ...(p.http!.connectionPool ? { connection_pool: snake(p.http!.connectionPool) } : {}),
          ...tls(p.http!.tls),
          ...(p.http!.request ? { request: snake(p.http!.request) } : {}),
          ...(p.http!.response ? { response: snake(p.http!.response) } : {}),
        },
      };
  return {
    ...protocol,
    ...(p.config ? { config: p.config } : {}),
    ...(p.failureModeAllow ? { failure_mode_allow: true } : {}),
  };
}
