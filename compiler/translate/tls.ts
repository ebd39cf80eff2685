/**
 * TLS -> Envoy: SDS Secrets, and the transport sockets that name them. A
 * listener or cluster refers to its certificate by name over ADS, so a new
 * certificate is an SDS push that changes no listener (no drain); emit turns
 * the references into static ones and inlines the Secrets for `envoy -c`.
 */
import type { DownstreamTlsIR, TlsFilesIR, TlsParametersIR, TlsSecretIR, UpstreamTlsIR } from '../ir/model.js';

/** Gloo's verifySubjectAltName matches a name of any type; Envoy's typed matchers take one type each. */
const SAN_TYPES = ['DNS', 'URI', 'EMAIL', 'IP_ADDRESS'];
import { ADS_CONFIG_SOURCE, type Json } from './output.js';

const TLS_SOCKET = 'envoy.transport_sockets.tls';
const DOWNSTREAM_TLS = 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext';
const UPSTREAM_TLS = 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext';

/** Reads the SNI a client sends, which the HTTPS listener's filter chains match on. */
export const TLS_INSPECTOR: Json = {
  name: 'envoy.filters.listener.tls_inspector',
  typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.listener.tls_inspector.v3.TlsInspector' },
};

/** The Secret's SDS resources: its certificate and key, and its CA (`<name>/ca.crt`). */
export function secretResources(secret: TlsSecretIR): Json[] {
  const out: Json[] = [];
  if (secret.certificate)
    out.push({
      name: secret.name,
      tls_certificate: {
        certificate_chain: { inline_string: secret.certificate.chain },
        private_key: { inline_string: secret.certificate.privateKey },
        ...(secret.certificate.ocspStaple ? { ocsp_staple: { inline_bytes: secret.certificate.ocspStaple } } : {}),
      },
    });
  if (secret.ca)
    out.push({ name: caSecretName(secret.name), validation_context: { trusted_ca: { inline_string: secret.ca } } });
  return out;
}

/** The SDS name of a Secret's ca.crt. */
export function caSecretName(secret: string): string {
  return `${secret}/ca.crt`;
}

function sds(name: string): Json {
  return { name, sds_config: ADS_CONFIG_SOURCE };
}

/** The CA over SDS, and the names the peer's certificate must carry (then in a combined validation context). */
function subjectAltNames(names: string[]): Json[] {
  return names.flatMap((name) => SAN_TYPES.map((san_type) => ({ san_type, matcher: { exact: name } })));
}

function validation(secret: string, names: string[]): Json {
  if (names.length === 0) return { validation_context_sds_secret_config: sds(caSecretName(secret)) };
  return {
    combined_validation_context: {
      default_validation_context: { match_typed_subject_alt_names: subjectAltNames(names) },
      validation_context_sds_secret_config: sds(caSecretName(secret)),
    },
  };
}

/** Gloo's protocol version names are Envoy's. */
function tlsParams(p: TlsParametersIR): Json {
  const params = {
    ...(p.minimumProtocolVersion ? { tls_minimum_protocol_version: p.minimumProtocolVersion } : {}),
    ...(p.maximumProtocolVersion ? { tls_maximum_protocol_version: p.maximumProtocolVersion } : {}),
    ...(p.cipherSuites ? { cipher_suites: p.cipherSuites } : {}),
    ...(p.ecdhCurves ? { ecdh_curves: p.ecdhCurves } : {}),
  };
  return Object.keys(params).length > 0 ? { tls_params: params } : {};
}

/** sslFiles' certificate (and OCSP response) as files the proxy reads. */
function fileCertificates(f: TlsFilesIR): Json {
  const file = (path: string | undefined, key: string) => (path !== undefined ? { [key]: { filename: path } } : {});
  const certificate = {
    ...file(f.certChain, 'certificate_chain'),
    ...file(f.privateKey, 'private_key'),
    ...file(f.ocspStaple, 'ocsp_staple'),
  };
  return Object.keys(certificate).length > 0 ? { tls_certificates: [certificate] } : {};
}

/** sslFiles' rootCa: the peer's certificate must be signed by it (and carry one of the names). */
function fileValidation(rootCa: string, names: string[]): Json {
  return {
    validation_context: {
      trusted_ca: { filename: rootCa },
      ...(names.length > 0 ? { match_typed_subject_alt_names: subjectAltNames(names) } : {}),
    },
  };
}

/**
 * The HTTPS filter chain's TLS: the Secret's certificate (or sslFiles'); its
 * ca.crt (rootCa), unless oneWayTls, requires a client certificate it signed.
 */
export function downstreamTransportSocket(tls: DownstreamTlsIR, secret: TlsSecretIR | undefined): Json {
  const files = tls.files;
  const verifyClient = (files ? files.rootCa : secret?.ca) !== undefined && !tls.oneWayTls;
  const certificates = files ? fileCertificates(files) : { tls_certificate_sds_secret_configs: [sds(secret!.name)] };
  const verification = !verifyClient
    ? {}
    : files
      ? fileValidation(files.rootCa!, tls.verifySubjectAltNames)
      : validation(secret!.name, tls.verifySubjectAltNames);
  return {
    name: TLS_SOCKET,
    typed_config: {
      '@type': DOWNSTREAM_TLS,
      common_tls_context: {
        ...tlsParams(tls.parameters),
        ...certificates,
        ...verification,
        ...(tls.alpnProtocols.length > 0 ? { alpn_protocols: tls.alpnProtocols } : {}),
      },
      ...(verifyClient ? { require_client_certificate: true } : {}),
      ...(tls.disableSessionResumption ? { disable_stateless_session_resumption: true } : {}),
      ...(tls.ocspStaplePolicy ? { ocsp_staple_policy: tls.ocspStaplePolicy } : {}),
    },
  };
}

/** A TLS filter chain's handshake deadline, when its sslConfig sets one. */
export function handshakeTimeout(tls: DownstreamTlsIR | undefined): Json {
  return tls?.connectTimeout ? { transport_socket_connect_timeout: tls.connectTimeout } : {};
}

/** TLS to an upstream: its ca.crt verifies the upstream, its certificate (unless oneWayTls) is the client's. */
export function upstreamTransportSocket(tls: UpstreamTlsIR, secret: TlsSecretIR | undefined): Json {
  const files = tls.files;
  const clientCertificate = secret?.certificate !== undefined && !tls.oneWayTls;
  const certificates = files
    ? tls.oneWayTls
      ? {}
      : fileCertificates(files)
    : clientCertificate
      ? { tls_certificate_sds_secret_configs: [sds(secret.name)] }
      : {};
  const verification = files?.rootCa
    ? fileValidation(files.rootCa, tls.verifySubjectAltNames)
    : secret?.ca !== undefined
      ? validation(secret.name, tls.verifySubjectAltNames)
      : {};
  return {
    name: TLS_SOCKET,
    typed_config: {
      '@type': UPSTREAM_TLS,
      ...(tls.sni !== undefined ? { sni: tls.sni } : {}),
      ...(tls.allowRenegotiation ? { allow_renegotiation: true } : {}),
      common_tls_context: {
        ...tlsParams(tls.parameters),
        ...certificates,
        ...verification,
        ...(tls.alpnProtocols.length > 0 ? { alpn_protocols: tls.alpnProtocols } : {}),
      },
    },
  };
}
