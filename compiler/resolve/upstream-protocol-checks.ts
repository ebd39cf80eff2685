/**
 * An Upstream's protocol settings that Gloo reads only together: the HTTP/2
 * settings and USE_DOWNSTREAM_PROTOCOL without useHttp2 (Gloo drops them
 * silently; Sluice says so), and HTTP/1 options on an HTTP/2-only upstream
 * (Gloo's own error).
 */
import { fieldError, type Diagnostic } from '../diagnostics.js';
import type { UpstreamIR } from '../ir/model.js';
import type { UpstreamSpec } from '../kinds/upstream.js';
import type { ResourceIndex } from './index.js';

const HTTP2_ONLY = [
  'initialStreamWindowSize',
  'initialConnectionWindowSize',
  'maxConcurrentStreams',
  'overrideStreamErrorOnInvalidHttpMessage',
] as const;

export function upstreamProtocolProblems(index: ResourceIndex): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const upstream of index.all('Upstream')) {
    const spec = upstream.spec as UpstreamSpec;
    const downstream = spec.protocolSelection === 'USE_DOWNSTREAM_PROTOCOL';
    if (!spec.useHttp2) {
      const set = [...HTTP2_ONLY.filter((f) => spec[f] !== undefined), ...(downstream ? ['protocolSelection'] : [])];
      for (const field of set)
        out.push(
          fieldError(
            'resolve',
            upstream.origin,
            ['spec', field],
            `${field} applies to HTTP/2 connections only, and this Upstream speaks HTTP/1.1 (Gloo ignores it without useHttp2)`,
            `set useHttp2: true, or remove ${field}`,
          ),
        );
    } else if (spec.connectionConfig?.http1ProtocolOptions && !downstream)
      out.push(
        fieldError(
          'resolve',
          upstream.origin,
          ['spec', 'connectionConfig', 'http1ProtocolOptions'],
          'HTTP/1 options on an Upstream that speaks HTTP/2 only (useHttp2) are never used',
          'set protocolSelection: USE_DOWNSTREAM_PROTOCOL (HTTP/1.1 or HTTP/2 as the client spoke), or remove http1ProtocolOptions',
        ),
      );
  }
  return out;
}

/** httpConnectHeaders without a tunnel, and a tunnel through a Service's proxies (their endpoints are served under the Upstream's own cluster name). */
export function tunnelProblems(index: ResourceIndex): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const upstream of index.all('Upstream')) {
    const spec = upstream.spec as UpstreamSpec;
    if (spec.httpConnectHeaders && !spec.httpProxyHostname)
      out.push(
        fieldError(
          'resolve',
          upstream.origin,
          ['spec', 'httpConnectHeaders'],
          'httpConnectHeaders are the headers of the CONNECT request, and without httpProxyHostname there is none',
          'set httpProxyHostname (host:port the proxy tunnels to), or remove httpConnectHeaders',
        ),
      );
    if (spec.httpProxyHostname && spec.kube)
      out.push(
        fieldError(
          'resolve',
          upstream.origin,
          ['spec', 'httpProxyHostname'],
          'tunnelling through the pods of a kube Upstream is not built: Sluice tunnels through static hosts',
          'list the proxies under static.hosts',
        ),
      );
  }
  return out;
}

/** Mesh mode serves no listener, and a tunnel needs its own. */
export function tunnelsInMesh(upstreams: readonly UpstreamIR[]): Diagnostic[] {
  return upstreams
    .filter((u) => u.tunnel)
    .map((u) =>
      fieldError(
        'resolve',
        u.origin,
        ['spec', 'httpProxyHostname'],
        'mesh mode (serve --mesh) serves no listener, and httpProxyHostname needs one (the tunnel entry on a Unix socket)',
        'remove httpProxyHostname, or serve without --mesh',
      ),
    );
}
