/** TLS Envoy speaks: its parameters, files on the proxy, and the client side (an upstream's, a collector's). */

/** Gloo's SslParameters.ProtocolVersion names. */
export type TlsVersion = 'TLS_AUTO' | 'TLSv1_0' | 'TLSv1_1' | 'TLSv1_2' | 'TLSv1_3';

export interface TlsParametersIR {
  minimumProtocolVersion?: TlsVersion;
  maximumProtocolVersion?: TlsVersion;
  cipherSuites?: string[];
  ecdhCurves?: string[];
}

/** Gloo's sslFiles: files the proxy reads. */
export interface TlsFilesIR {
  certChain?: string;
  privateKey?: string;
  rootCa?: string;
  ocspStaple?: string;
}

export interface UpstreamTlsIR {
  /** TlsSecretIR name: its certificate is the client certificate, its ca.crt verifies the upstream. None (and no files): TLS without verification, as Gloo. */
  secret?: string;
  /** sslFiles: paths on the proxy, instead of a Secret. */
  files?: TlsFilesIR;
  sni?: string;
  parameters: TlsParametersIR;
  alpnProtocols: string[];
  /** The peer's certificate must carry one of these subject alternative names (any type); needs the Secret's ca.crt. */
  verifySubjectAltNames: string[];
  /** true: no client certificate even when the Secret has one. */
  oneWayTls: boolean;
  allowRenegotiation?: boolean;
}
