/**
 * Whether Envoy resolves an upstream's hosts by DNS (a STRICT_DNS cluster)
 * or is given their addresses (EDS): translate builds the cluster by it, and
 * resolve refuses DNS settings on a cluster that resolves nothing.
 */
import type { HostIR, UpstreamIR } from './model.js';

export function isIpAddress(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
}

/** A DNS target, or static hosts (failover endpoints included) of which one is a DNS name; a Service's pods are EDS. */
export function resolvesByDns(upstream: Pick<UpstreamIR, 'target' | 'failover'>): boolean {
  const { target } = upstream;
  if (target.kind === 'dns') return true;
  if (target.kind === 'service') return false;
  const failover: HostIR[] = upstream.failover?.priorities.flat().flatMap((l) => l.hosts) ?? [];
  return ![...target.hosts, ...failover].every((h) => isIpAddress(h.address));
}
