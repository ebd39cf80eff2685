/** Gloo's SslConfig (ssl.proto) for TLS termination, and UpstreamSslConfig for TLS to an upstream; the Secrets are read by resolve/tls.ts. */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { note, refused } from './gloo.js';
import { resourceRef } from './resource.js';
import { tlsParameterFields } from './tls-parameters.js';
import { atMostOne, boolean, domain, exactlyOne, object, positiveDuration, protoEnum, singleLine } from './schema.js';

/** Gloo's SslParameters.ProtocolVersion. */
export const TLS_VERSIONS = ['TLS_AUTO', 'TLSv1_0', 'TLSv1_1', 'TLSv1_2', 'TLSv1_3'] as const;

const sslParameters = object({
  minimumProtocolVersion: note(protoEnum(TLS_VERSIONS), 'TLS_AUTO, TLSv1_0 to TLSv1_3'),
  maximumProtocolVersion: note(protoEnum(TLS_VERSIONS), 'TLS_AUTO, TLSv1_0 to TLSv1_3; not below the minimum'),
  ...tlsParameterFields,
});
const alpnProtocols = Type.Array(singleLine, { uniqueItems: true });
const verifySubjectAltName = note(
  Type.Array(singleLine, { uniqueItems: true }),
  "the peer's certificate must carry one of these subject alternative names (DNS, URI, email or IP, exactly); needs ca.crt in the Secret",
);
const path = note(singleLine, 'a file on the proxy');
/** Gloo's SSLFiles: paths the proxy reads itself; the compiler does not see them. */
const sslFiles = (what: string, upstream = false) =>
  note(
    object({
      tlsCert: path,
      tlsKey: path,
      rootCa: path,
      ocspStaple: upstream
        ? refused('an OCSP response is stapled by a server, and here Envoy is the client')
        : note(singleLine, 'a DER file on the proxy'),
    }),
    `files the proxy reads (Envoy's DataSource filename), instead of a Secret: ${what}; not checked at compile time`,
  );
const sds = () =>
  refused(
    "an external SDS server is not implemented: Sluice's SDS names are the Secrets it serves itself (and inlines in a static bootstrap), so a name another server answers for would be taken for one of them",
    'use secretRef, or sslFiles for certificates an agent writes to the proxy',
  );

/** The fields of a downstream SslConfig, with what its secretRef means where it is used. */
function sslConfigFields<S extends TSchema>(secretRef: S) {
  return {
    secretRef,
    sslFiles: sslFiles('tlsCert and tlsKey are the certificate served, rootCa requires client certificates it signed'),
    sds: sds(),
    sniDomains: note(
      Type.Array(domain, { uniqueItems: true }),
      'one filter chain per distinct sslConfig, matched by SNI; empty: any SNI (and none). Two chains sharing an SNI domain on one Gateway are an error',
    ),
    parameters: sslParameters,
    alpnProtocols: note(alpnProtocols, 'default ["h2", "http/1.1"]'),
    oneWayTls: boolean,
    verifySubjectAltName,
    disableTlsSessionResumption: note(
      boolean,
      "true: no TLS session tickets (Envoy's disable_stateless_session_resumption)",
    ),
    transportSocketConnectTimeout: note(
      positiveDuration,
      "the TLS handshake's deadline on the filter chain (Envoy's transport_socket_connect_timeout); unset: none",
    ),
    ocspStaplePolicy: note(
      protoEnum(['LENIENT_STAPLING', 'STRICT_STAPLING', 'MUST_STAPLE'] as const),
      "Envoy's ocsp_staple_policy; the staple is the Secret's tls.ocsp-staple (DER), as Gloo stores it; MUST_STAPLE without one is an error",
    ),
  };
}

/** A VirtualService's sslConfig. */
export const sslConfig = object(
  sslConfigFields(
    note(
      resourceRef,
      'a kubernetes.io/tls Secret (tls.crt, tls.key; ca.crt requires client certificates unless oneWayTls); checked at compile time (PEM, key matches certificate, not expired; names not covering the domains: a warning). One of secretRef and sslFiles is required',
    ),
  ),
  [],
  exactlyOne('secretRef', 'sslFiles'),
);

/** An sslConfig whose secretRef is optional (TCP hosts, matchers): without it, connections are matched by SNI only. */
export function sniSslConfig(secretRefNote: string) {
  return object(sslConfigFields(note(resourceRef, secretRefNote)), [], atMostOne('secretRef', 'sslFiles'));
}

export const upstreamSslConfig = object(
  {
    secretRef: note(
      resourceRef,
      "a Secret: its ca.crt verifies the upstream's certificate, its tls.crt and tls.key are the client certificate. Without one (or without ca.crt) the upstream's certificate is not verified, as Gloo (a warning)",
    ),
    sslFiles: sslFiles(
      "rootCa verifies the upstream's certificate, tlsCert and tlsKey are the client certificate",
      true,
    ),
    sds: sds(),
    sni: singleLine,
    parameters: sslParameters,
    alpnProtocols,
    oneWayTls: note(boolean, 'true: no client certificate even when the Secret has one'),
    verifySubjectAltName,
    allowRenegotiation: note(boolean, 'true: the upstream may renegotiate TLS (Envoy refuses by default)'),
  },
  [],
  atMostOne('secretRef', 'sslFiles'),
);

export type SslConfigSpec = Static<typeof sslConfig>;
export type SniSslConfigSpec = Static<ReturnType<typeof sniSslConfig>>;
export type UpstreamSslConfigSpec = Static<typeof upstreamSslConfig>;
export type SslParametersSpec = Static<typeof sslParameters>;
