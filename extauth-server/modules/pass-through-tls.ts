/**
 * TLS to a pass-through service (Gloo's tlsConfig): the PEM the compiler
 * read from the config's Secret and the protocol versions, as the options
 * Node's TLS takes (undici's connect options, a gRPC secure context).
 */
import { ConfigError, str, type Obj } from '../config-fields.js';

export interface TlsSettings {
  /** Empty: the system's roots. */
  ca?: string;
  /** The sidecar's client certificate (mTLS). */
  cert?: string;
  key?: string;
  minVersion: 'TLSv1.2' | 'TLSv1.3';
  maxVersion: 'TLSv1.2' | 'TLSv1.3';
}

const VERSIONS = new Set(['TLSv1.2', 'TLSv1.3']);

function version(raw: Obj, name: string, unset: TlsSettings['minVersion'], at: string): TlsSettings['minVersion'] {
  const v = str(raw, name, at) || unset;
  if (!VERSIONS.has(v)) throw new ConfigError(`${at}.${name}: "${v}" is not TLSv1.2 or TLSv1.3`);
  return v as TlsSettings['minVersion'];
}

/** The `tls` message of a grpc or http service; undefined: plain text. */
export function parseTls(raw: Obj | undefined, at: string): TlsSettings | undefined {
  if (!raw) return undefined;
  const [ca, cert, key] = ['ca_pem', 'cert_pem', 'key_pem'].map((f) => str(raw, f, at) || undefined);
  if (!cert !== !key) throw new ConfigError(`${at}: cert_pem and key_pem go together`);
  const tls: TlsSettings = {
    minVersion: version(raw, 'min_version', 'TLSv1.2', at),
    maxVersion: version(raw, 'max_version', 'TLSv1.3', at),
    ...(ca ? { ca } : {}),
    ...(cert && key ? { cert, key } : {}),
  };
  if (tls.minVersion === 'TLSv1.3' && tls.maxVersion === 'TLSv1.2')
    throw new ConfigError(`${at}: min_version is above max_version`);
  return tls;
}
