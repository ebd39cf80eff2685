/**
 * Gloo's SslParameters.cipherSuites and ecdhCurves, checked against what
 * Envoy's TLS library (BoringSSL) knows: Envoy refuses a listener or cluster
 * naming one it does not, so an unknown name is an error at compile time.
 */
import { Type } from '@sinclair/typebox';
import { note } from './gloo.js';

/** BoringSSL's TLS 1.2 cipher suite names (TLS 1.3's are not configurable). */
export const CIPHER_SUITES = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
  'ECDHE-PSK-CHACHA20-POLY1305',
  'ECDHE-ECDSA-AES128-SHA',
  'ECDHE-RSA-AES128-SHA',
  'ECDHE-PSK-AES128-CBC-SHA',
  'ECDHE-ECDSA-AES256-SHA',
  'ECDHE-RSA-AES256-SHA',
  'ECDHE-PSK-AES256-CBC-SHA',
  'AES128-GCM-SHA256',
  'AES256-GCM-SHA384',
  'AES128-SHA',
  'PSK-AES128-CBC-SHA',
  'AES256-SHA',
  'PSK-AES256-CBC-SHA',
  'DES-CBC3-SHA',
] as const;

export const ECDH_CURVES = ['X25519', 'P-224', 'P-256', 'P-384', 'P-521'] as const;

export const tlsParameterFields = {
  cipherSuites: note(
    Type.Array(Type.String({ format: 'cipher-suite' }), {
      minItems: 1,
      uniqueItems: true,
    }),
    `TLS 1.2 and below; BoringSSL's names (${CIPHER_SUITES.slice(0, 2).join(', ')}, ...), or an equal-preference group "[A|B]"; unset: Envoy's defaults`,
  ),
  ecdhCurves: note(
    Type.Array(Type.Unsafe<string>({ enum: [...ECDH_CURVES] }), { minItems: 1, uniqueItems: true }),
    `${ECDH_CURVES.join(', ')}; unset: Envoy's X25519, P-256`,
  ),
};
