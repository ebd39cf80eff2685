/**
 * What a stream reports of itself, on /status and in the server's events:
 * the node it serves (from the first request) and, per type, the versions
 * sent, ACKed and NACKed.
 */
import { DEFAULT_PROXY_NAME } from '../../compiler/resolve/gateways.js';
import type { ErrorDetail } from '../cache/cache.js';

export interface NodeInfo {
  id: string;
  cluster: string;
  userAgent: string;
  /** From node metadata `sluice.listener_port` (set by `sluice bootstrap --listener-port`). */
  listenerPort?: number;
  /** The proxy of a fleet the node is (Gateway proxyNames), from node metadata `role`. */
  proxy: string;
}

/**
 * A node's proxy name: node metadata `role`, as Gloo's bootstrap sets it
 * (`NAMESPACE~NAME`, or plain `NAME`); without one, Gloo's default proxy.
 */
export function proxyOf(role: string | null | undefined): string {
  const name = role?.slice(role.lastIndexOf('~') + 1);
  return name ? name : DEFAULT_PROXY_NAME;
}

export interface TypeStatus {
  /** Version last sent. */
  sent?: string;
  /** Version (SotW) or system version (delta) last ACKed. */
  acked?: string;
  nacked?: { version: string; errorDetail: ErrorDetail; at: string };
}

export interface StreamStatus {
  id: number;
  protocol: 'sotw' | 'delta';
  node?: NodeInfo;
  types: Record<string, TypeStatus>;
  /** The client's address as gRPC reports it (`127.0.0.1:50312`). */
  address: string;
  /** When the stream opened (ISO 8601). */
  connectedAt: string;
  /** Bytes of responses written to the stream and not yet taken by its HTTP/2 stream (a client that stopped reading). */
  unflushedBytes: number;
}
