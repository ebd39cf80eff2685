/**
 * The TLS Envoy speaks as a client, with where it was written: each
 * Upstream's, and each Gateway's OpenTelemetry collector given an sslConfig.
 * Their Secrets are checked, served and warned about alike (./tls.ts).
 */
import type { FieldPath, Origin } from '../diagnostics.js';
import type { GatewayIR, UpstreamIR, UpstreamTlsIR } from '../ir/model.js';

export interface ClientTls {
  tls: UpstreamTlsIR;
  origin: Origin;
  /** The sslConfig's path in its resource. */
  path: FieldPath;
  /** What Envoy connects to, for messages: `upstream <ns>/<name>`. */
  peer: string;
}

export function clientTlsUses(upstreams: readonly UpstreamIR[], gateways: readonly GatewayIR[]): ClientTls[] {
  // An aws Upstream's TLS is Sluice's own, not an sslConfig (aws-lambda.ts warns of it).
  const own = upstreams.flatMap((u) =>
    u.tls && !u.lambda
      ? [{ tls: u.tls, origin: u.origin, path: ['spec', 'sslConfig'], peer: `upstream ${u.namespace}/${u.name}` }]
      : [],
  );
  const collectors = gateways.flatMap((gw) =>
    [...gw.accessLogs, ...(gw.listenerFields?.accessLogs ?? [])].flatMap(({ sink }) =>
      sink.kind === 'opentelemetry' && sink.tls && sink.sslConfigAt
        ? [
            {
              tls: sink.tls,
              origin: gw.origin,
              path: sink.sslConfigAt,
              peer: `the collector ${sink.host}:${sink.port}`,
            },
          ]
        : [],
    ),
  );
  return [...own, ...collectors];
}
