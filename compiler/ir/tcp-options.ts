/** A tcpGateway's options, on each of its TCP hosts' tcp_proxy. */
import type { ConnectionLimitIR, TokenBucketIR } from './listener-options.js';

export interface TcpProxyOptionsIR {
  maxConnectAttempts?: number;
  /** Proto3 JSON durations. */
  idleTimeout?: string;
  accessLogFlushInterval?: string;
  /** An HTTP CONNECT tunnel to `hostname` through the Upstream. */
  tunnel?: { hostname: string; headers: { key: string; value: string; append: boolean }[] };
  connectionLimit?: ConnectionLimitIR;
  /** Envoy's network local_ratelimit: one token per new connection. */
  localRateLimit?: TokenBucketIR;
}
