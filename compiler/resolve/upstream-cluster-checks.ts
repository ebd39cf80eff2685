/**
 * Upstream cluster fields Envoy would refuse or silently ignore: DNS
 * settings on a cluster that resolves no name, a refresh rate Envoy's
 * bound refuses, predictive preconnecting under a hashing load balancer, a
 * health check's CONNECT method (Gloo's own error) and ALPN for a check's
 * TLS where the upstream speaks none.
 */
import { fieldError, type Diagnostic } from '../diagnostics.js';
import { parseDuration } from '../../contract/proto3-json.js';
import { resolvesByDns } from '../ir/cluster-type.js';
import type { UpstreamIR } from '../ir/model.js';

/** Envoy's dns_refresh_rate must be above 1 ms. */
const MIN_DNS_REFRESH_NANOS = 1_000_000n;

function dnsProblems(upstream: UpstreamIR): Diagnostic[] {
  const c = upstream.policy?.cluster;
  if (!c) return [];
  const out: Diagnostic[] = [];
  const dns = resolvesByDns(upstream);
  for (const field of ['respectDnsTtl', 'dnsRefreshRate'] as const) {
    if (c[field] === undefined || dns) continue;
    const what =
      upstream.target.kind === 'service'
        ? "its cluster takes the Service's pod addresses (EDS)"
        : 'all its hosts are IP addresses (EDS)';
    out.push(
      fieldError(
        'resolve',
        upstream.origin,
        ['spec', field],
        `${field} applies to hosts Envoy resolves by DNS name, and this Upstream has none: ${what}`,
        `remove ${field}`,
      ),
    );
  }
  if (c.dnsRefreshRate !== undefined && (parseDuration(c.dnsRefreshRate) ?? 0n) <= MIN_DNS_REFRESH_NANOS)
    out.push(
      fieldError(
        'resolve',
        upstream.origin,
        ['spec', 'dnsRefreshRate'],
        `dnsRefreshRate ${c.dnsRefreshRate} is not above 1ms, which Envoy refuses (Gloo ignores it with a warning)`,
        'write a longer duration, such as "5s" (Envoy\'s default)',
      ),
    );
  const kind = upstream.policy?.loadBalancer?.kind;
  if (c.preconnect?.predictive !== undefined && (kind === 'ringHash' || kind === 'maglev'))
    out.push(
      fieldError(
        'resolve',
        upstream.origin,
        ['spec', 'preconnectPolicy', 'predictivePreconnectRatio'],
        `Envoy preconnects predictively only for roundRobin, leastRequest and random load balancers, and this Upstream's is ${kind}: it would open no connection ahead`,
        'remove predictivePreconnectRatio (perUpstreamPreconnectRatio works with every load balancer)',
      ),
    );
  return out;
}

function healthCheckProblems(upstream: UpstreamIR): Diagnostic[] {
  return (upstream.policy?.healthChecks ?? []).flatMap((h, i) => {
    const at = ['spec', 'healthChecks', i];
    const out: Diagnostic[] = [];
    if (h.check.kind === 'http' && h.check.method === 'CONNECT')
      out.push(
        fieldError(
          'resolve',
          upstream.origin,
          [...at, 'httpHealthCheck', 'method'],
          'a health check cannot use CONNECT (Envoy and Gloo refuse it)',
          'use GET or HEAD',
        ),
      );
    // Through a tunnel the checks reach the proxies, in plain TCP.
    if (h.alpnProtocols && (!upstream.tls || upstream.tunnel))
      out.push(
        fieldError(
          'resolve',
          upstream.origin,
          [...at, 'tlsOptions'],
          `tlsOptions set the ALPN of the check's TLS handshake, and ${upstream.tunnel ? "this Upstream's checks reach its HTTP CONNECT proxies in plain TCP" : 'this Upstream speaks plain TCP'}`,
          upstream.tunnel ? 'remove tlsOptions' : 'set sslConfig on the Upstream, or remove tlsOptions',
        ),
      );
    return out;
  });
}

export function upstreamClusterProblems(upstreams: readonly UpstreamIR[]): Diagnostic[] {
  return upstreams.flatMap((u) => [...dnsProblems(u), ...healthCheckProblems(u)]);
}
