/**
 * Gloo's tlsConfig on a passThroughAuth service (grpc or http): the
 * Secret's PEM for the sidecar (tls.crt and tls.key: its client
 * certificate; ca.crt: the CAs the service's certificate must chain to,
 * else the system's roots) and the protocol versions. Each PEM is parsed
 * here so a broken Secret is an error naming it, never a sidecar that
 * cannot connect; a key's text never appears in a message.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { fieldError, notFound, type Diagnostic, type FieldPath } from '../../diagnostics.js';
import type { PassThroughTlsIR } from '../../ir/model.js';
import type { PassThroughAuthSpec } from '../../kinds/extauth/pass-through.js';
import type { Resource } from '../../validate/validate.js';
import { refOf, showRef } from '../index.js';
import type { Lookups } from '../lookups.js';
import { OptionReport } from '../option-report.js';
import { secretEntry } from '../tls.js';

type TlsSpec = NonNullable<NonNullable<PassThroughAuthSpec['grpc']>['tlsConfig']>;

const VERSIONS = { TLS_AUTO: undefined, TLSv1_2: 'TLSv1.2', TLSv1_3: 'TLSv1.3' } as const;

/** The IR, or undefined after reporting a problem. `at`: the tlsConfig. */
export function passThroughTls(
  ac: Resource,
  at: FieldPath,
  spec: TlsSpec,
  lookups: Lookups,
  diagnostics: Diagnostic[],
): PassThroughTlsIR | undefined {
  const report = new OptionReport(ac.origin, diagnostics);
  const fail = (path: FieldPath, message: string, hint: string) => report.error(path, message, hint);
  const version = (field: 'minimumProtocolVersion' | 'maximumProtocolVersion', unset: 'TLSv1.2' | 'TLSv1.3') => {
    const value = spec.sslParams?.[field] ?? 'TLS_AUTO';
    if (value === 'TLSv1_1') {
      fail(
        [...at, 'sslParams', field],
        'TLS 1.1 is refused: the sidecar speaks TLS 1.2 and 1.3 only (TLS 1.1 is deprecated, RFC 8996)',
        'use TLSv1_2 or TLSv1_3, or TLS_AUTO',
      );
      return unset;
    }
    return VERSIONS[value] ?? unset;
  };
  const tls: PassThroughTlsIR = {
    minVersion: version('minimumProtocolVersion', 'TLSv1.2'),
    maxVersion: version('maximumProtocolVersion', 'TLSv1.3'),
  };
  if (tls.minVersion === 'TLSv1.3' && tls.maxVersion === 'TLSv1.2')
    fail(
      [...at, 'sslParams'],
      'minimumProtocolVersion TLSv1_3 is above maximumProtocolVersion TLSv1_2',
      'lower the minimum or raise the maximum',
    );
  if (spec.secretRef) {
    const ref = refOf(spec.secretRef, ac);
    const secretAt = [...at, 'secretRef'];
    const secret = lookups.resource('Secret', ref);
    if (!secret) {
      diagnostics.push(
        notFound(
          fieldError(
            'resolve',
            ac.origin,
            secretAt,
            `Secret ${showRef(ref)} not found`,
            'create a kubernetes.io/tls Secret with tls.crt and tls.key (and ca.crt to check the service against your CA)',
          ),
          `Secret ${showRef(ref)}`,
        ),
      );
      return undefined;
    }
    const entry = (key: string) => secretEntry(secret, key)?.value;
    const [crt, key, ca] = [entry('tls.crt'), entry('tls.key'), entry('ca.crt')];
    const bad = (what: string, hint: string) => fail(secretAt, `Secret ${showRef(ref)}: ${what}`, hint);
    if ((crt === undefined) !== (key === undefined))
      bad(
        `has ${crt ? 'tls.crt without tls.key' : 'tls.key without tls.crt'}`,
        'give both (a client certificate and its key) or neither',
      );
    if (crt !== undefined && !parses(() => new X509Certificate(crt)))
      bad('tls.crt is not a PEM certificate', 'put the client certificate in tls.crt, PEM-encoded');
    if (key !== undefined && !parses(() => createPrivateKey(key)))
      bad('tls.key is not a PEM private key', 'put the unencrypted private key of tls.crt in tls.key');
    if (ca !== undefined && !parses(() => new X509Certificate(ca)))
      bad('ca.crt is not a PEM certificate', "put the CA certificates that sign the service's certificate in ca.crt");
    if (ca !== undefined) tls.caPem = ca;
    if (crt !== undefined && key !== undefined) Object.assign(tls, { certPem: crt, keyPem: key });
  }
  return report.ok ? tls : undefined;
}

function parses(make: () => unknown): boolean {
  try {
    make();
    return true;
  } catch {
    return false;
  }
}
