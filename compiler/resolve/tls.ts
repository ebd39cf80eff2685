/**
 * TLS: Gloo's sslConfig (a VirtualService's, an Upstream's) -> IR, and the
 * Secrets they name -> TlsSecretIR, checked here so Envoy never sees a bad
 * certificate: a PEM that does not parse, a key that does not match its
 * certificate, an expired certificate are errors at the Secret's file and
 * line; a certificate whose names do not cover the domains it serves is a
 * warning. Messages never quote key material.
 */
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import {
  asWarning,
  fieldError,
  notFound,
  quote,
  type Diagnostic,
  type FieldPath,
  type Origin,
} from '../diagnostics.js';
import type {
  DownstreamTlsIR,
  TlsFilesIR,
  GatewayIR,
  TlsParametersIR,
  TlsSecretIR,
  TlsVersion,
  UpstreamIR,
  UpstreamTlsIR,
  VirtualHostIR,
} from '../ir/model.js';
import type { SslConfigSpec, SslParametersSpec, UpstreamSslConfigSpec } from '../kinds/tls.js';
import type { Resource } from '../validate/validate.js';
import { refOf, type ResourceIndex } from './index.js';

/** What an HTTPS listener offers when the sslConfig names no ALPN protocols: HTTP/2 and HTTP/1.1, as Gloo. */
export const DEFAULT_ALPN = ['h2', 'http/1.1'];

/** The SDS name of a Secret's certificate and key; its ca.crt is `<name>/ca.crt`. */
export function secretName(ref: { namespace: string; name: string }): string {
  return `${ref.namespace}/${ref.name}`;
}

function parameters(spec: SslParametersSpec | undefined): TlsParametersIR {
  return {
    ...(spec?.minimumProtocolVersion ? { minimumProtocolVersion: spec.minimumProtocolVersion } : {}),
    ...(spec?.maximumProtocolVersion ? { maximumProtocolVersion: spec.maximumProtocolVersion } : {}),
    ...(spec?.cipherSuites ? { cipherSuites: spec.cipherSuites } : {}),
    ...(spec?.ecdhCurves ? { ecdhCurves: spec.ecdhCurves } : {}),
  };
}

/** `path`: where the sslConfig is in `from`. */
export function downstreamTls(spec: SslConfigSpec, from: Resource, path: FieldPath): DownstreamTlsIR {
  return {
    origin: from.origin,
    path,
    ...(spec.secretRef ? { secret: secretName(refOf(spec.secretRef, from)) } : {}),
    ...(spec.sslFiles ? { files: tlsFiles(spec.sslFiles) } : {}),
    sniDomains: spec.sniDomains ?? [],
    parameters: parameters(spec.parameters),
    alpnProtocols: spec.alpnProtocols ?? DEFAULT_ALPN,
    verifySubjectAltNames: spec.verifySubjectAltName ?? [],
    oneWayTls: spec.oneWayTls ?? false,
    ...(spec.disableTlsSessionResumption ? { disableSessionResumption: true } : {}),
    ...(spec.transportSocketConnectTimeout ? { connectTimeout: spec.transportSocketConnectTimeout } : {}),
    ...(spec.ocspStaplePolicy && spec.ocspStaplePolicy !== 'LENIENT_STAPLING'
      ? { ocspStaplePolicy: spec.ocspStaplePolicy }
      : {}),
  };
}

export function upstreamTls(spec: UpstreamSslConfigSpec, from: Resource): UpstreamTlsIR {
  return {
    ...(spec.secretRef ? { secret: secretName(refOf(spec.secretRef, from)) } : {}),
    ...(spec.sslFiles ? { files: tlsFiles(spec.sslFiles) } : {}),
    ...(spec.sni !== undefined ? { sni: spec.sni } : {}),
    parameters: parameters(spec.parameters),
    alpnProtocols: spec.alpnProtocols ?? [],
    verifySubjectAltNames: spec.verifySubjectAltName ?? [],
    oneWayTls: spec.oneWayTls ?? false,
    ...(spec.allowRenegotiation ? { allowRenegotiation: true } : {}),
  };
}

/** Gloo's sslFiles: the paths as written, read by the proxy. */
function tlsFiles(f: { tlsCert?: string; tlsKey?: string; rootCa?: string; ocspStaple?: string }): TlsFilesIR {
  return {
    ...(f.tlsCert !== undefined ? { certChain: f.tlsCert } : {}),
    ...(f.tlsKey !== undefined ? { privateKey: f.tlsKey } : {}),
    ...(f.rootCa !== undefined ? { rootCa: f.rootCa } : {}),
    ...(f.ocspStaple !== undefined ? { ocspStaple: f.ocspStaple } : {}),
  };
}

/** A key of a Secret and where it is: `stringData` wins over base64 `data`, as the API server merges them. */
export function secretEntry(secret: Resource, key: string): { value: string; path: FieldPath } | undefined {
  const { data, stringData } = secret.value as { data?: Record<string, string>; stringData?: Record<string, string> };
  if (stringData && typeof stringData[key] === 'string') return { value: stringData[key], path: ['stringData', key] };
  if (data && typeof data[key] === 'string')
    return { value: Buffer.from(data[key], 'base64').toString('utf8'), path: ['data', key] };
  return undefined;
}

const VERSION_ORDER: TlsVersion[] = ['TLSv1_0', 'TLSv1_1', 'TLSv1_2', 'TLSv1_3'];

/** A Secret's parsed material, kept per Secret object (its checks against the clock run every compile). */
interface Parsed {
  chain?: { certs: X509Certificate[]; text: string; path: FieldPath } | { problem: string; path: FieldPath };
  key?: { key: KeyObject; text: string; path: FieldPath } | { problem: string; path: FieldPath };
  ca?: { certs: X509Certificate[]; text: string; path: FieldPath } | { problem: string; path: FieldPath };
}

const parsedSecrets = new WeakMap<Resource, Parsed>();

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

function certificates(text: string): X509Certificate[] | string {
  const blocks = [...text.matchAll(PEM_BLOCK)];
  if (blocks.length === 0) return 'holds no PEM block ("-----BEGIN CERTIFICATE-----")';
  const certs: X509Certificate[] = [];
  for (const [i, block] of blocks.entries()) {
    if (block[1] !== 'CERTIFICATE') return `PEM block ${i + 1} is a ${quote(block[1]!)}, not a CERTIFICATE`;
    try {
      certs.push(new X509Certificate(block[0]));
    } catch {
      return `PEM block ${i + 1} is not a valid X.509 certificate`;
    }
  }
  return certs;
}

function parse(secret: Resource): Parsed {
  let parsed = parsedSecrets.get(secret);
  if (parsed) return parsed;
  parsed = {};
  const crt = secretEntry(secret, 'tls.crt');
  if (crt) {
    const certs = certificates(crt.value);
    parsed.chain =
      typeof certs === 'string'
        ? { problem: `tls.crt ${certs}`, path: crt.path }
        : { certs, text: crt.value, path: crt.path };
  }
  const key = secretEntry(secret, 'tls.key');
  if (key) {
    try {
      parsed.key = { key: createPrivateKey(key.value), text: key.value, path: key.path };
    } catch {
      // The crypto error is not shown: some quote the input.
      const encrypted = /ENCRYPTED/.test(key.value);
      parsed.key = {
        problem: encrypted
          ? 'tls.key is an encrypted private key; Envoy needs it unencrypted'
          : 'tls.key is not a PEM private key (PKCS#8, PKCS#1 or SEC1)',
        path: key.path,
      };
    }
  }
  const ca = secretEntry(secret, 'ca.crt');
  if (ca) {
    const certs = certificates(ca.value);
    parsed.ca =
      typeof certs === 'string'
        ? { problem: `ca.crt ${certs}`, path: ca.path }
        : { certs, text: ca.value, path: ca.path };
  }
  parsedSecrets.set(secret, parsed);
  return parsed;
}

/** Who uses a Secret, for the errors a missing or unfit one gets. */
interface SecretUse {
  origin: Origin;
  path: FieldPath;
  secret: string;
  /** A server certificate: tls.crt and tls.key required. */
  needsCertificate: boolean;
  /** Domains the certificate should cover (a warning if not). */
  domains: string[];
}

/**
 * The Secrets the model's TLS uses, checked, by name; every problem reported
 * (a Secret's own once, at its file and line). Also checks the sslConfigs'
 * parameters, and warns of an upstream whose certificate is not verified.
 */
export function resolveTlsSecrets(
  index: ResourceIndex,
  virtualHosts: VirtualHostIR[],
  upstreams: UpstreamIR[],
  gateways: GatewayIR[],
  diagnostics: Diagnostic[],
  now = Date.now(),
): TlsSecretIR[] {
  const uses: SecretUse[] = [];
  const served: DownstreamTlsIR[] = [];
  /** A server certificate for `domains` and the sslConfig's SNI domains. */
  const serve = (tls: DownstreamTlsIR, domains: string[]) => {
    served.push(tls);
    checkParameters(tls.parameters, tls.origin, [...tls.path, 'parameters'], diagnostics);
    const files = tls.files;
    if (files && (files.certChain === undefined || files.privateKey === undefined))
      diagnostics.push(
        fieldError(
          'resolve',
          tls.origin,
          [...tls.path, 'sslFiles'],
          'a server needs its certificate and key: tlsCert and tlsKey are both required here',
          'give the paths of the certificate chain and its private key on the proxy',
        ),
      );
    if (!tls.secret) return;
    uses.push({
      origin: tls.origin,
      path: [...tls.path, 'secretRef'],
      secret: tls.secret,
      needsCertificate: true,
      domains: [...new Set([...domains, ...tls.sniDomains])],
    });
  };
  for (const vh of virtualHosts) if (vh.tls) serve(vh.tls, vh.domains);
  // A hybridGateway's matcher TLS serves the virtual hosts of its chain; TCP hosts only their SNI domains.
  const byName = new Map(virtualHosts.map((vh) => [vh.name, vh]));
  const ofVirtualHosts = new Set(virtualHosts.map((vh) => vh.tls));
  for (const gw of gateways) {
    for (const chain of gw.chains)
      if (chain.tls && !ofVirtualHosts.has(chain.tls))
        serve(
          chain.tls,
          chain.virtualHosts.flatMap((name) => byName.get(name)?.domains ?? []),
        );
    for (const h of gw.tcpHosts) if (h.tls) serve(h.tls, []);
  }
  for (const u of upstreams) {
    if (!u.tls) continue;
    const base = ['spec', 'sslConfig'];
    checkParameters(u.tls.parameters, u.origin, [...base, 'parameters'], diagnostics);
    if (u.tls.secret)
      uses.push({
        origin: u.origin,
        path: [...base, 'secretRef'],
        secret: u.tls.secret,
        needsCertificate: false,
        domains: [],
      });
  }
  const out = new Map<string, TlsSecretIR>();
  const reported = new Set<string>();
  for (const use of uses) {
    const [namespace, name] = use.secret.split('/') as [string, string];
    const secret = index.get('Secret', { namespace, name });
    if (!secret) {
      diagnostics.push(
        notFound(
          fieldError(
            'resolve',
            use.origin,
            use.path,
            `Secret ${use.secret} not found`,
            `create it: kubectl create secret tls ${name} -n ${namespace} --cert=tls.crt --key=tls.key --dry-run=client -o yaml, and add it to the resources`,
          ),
          `Secret ${use.secret}`,
        ),
      );
      continue;
    }
    const parsed = parse(secret);
    const own = (path: FieldPath, message: string, hint: string, warning = false) => {
      const key = `${use.secret}|${path.join('.')}|${message}`;
      if (reported.has(key)) return;
      reported.add(key);
      const d = fieldError('resolve', secret.origin, path, message, hint);
      diagnostics.push(warning ? asWarning(d) : d);
    };
    const ir = checkSecret(secret, parsed, use, now, own, diagnostics);
    if (ir) out.set(ir.name, ir);
  }
  const sanHint =
    "put the CA that signs the peer's certificates in the Secret's ca.crt, or remove verifySubjectAltName";
  for (const tls of served) {
    const secret = tls.secret ? out.get(tls.secret) : undefined;
    if (tls.files && tls.ocspStaplePolicy === 'MUST_STAPLE' && !tls.files.ocspStaple)
      diagnostics.push(
        fieldError(
          'resolve',
          tls.origin,
          [...tls.path, 'ocspStaplePolicy'],
          'MUST_STAPLE needs an OCSP response, and sslFiles has no ocspStaple: Envoy would refuse the listener',
          "give the DER-encoded OCSP response's path in sslFiles.ocspStaple, or use STRICT_STAPLING",
        ),
      );
    if (secret?.certificate && tls.ocspStaplePolicy === 'MUST_STAPLE' && !secret.certificate.ocspStaple)
      diagnostics.push(
        fieldError(
          'resolve',
          tls.origin,
          [...tls.path, 'ocspStaplePolicy'],
          `MUST_STAPLE needs an OCSP response, and Secret ${tls.secret} has no tls.ocsp-staple: Envoy would refuse the listener`,
          "add the certificate's DER-encoded OCSP response to the Secret as tls.ocsp-staple (data, base64), or use STRICT_STAPLING",
        ),
      );
    if (!secret || tls.verifySubjectAltNames.length === 0) continue;
    // Names are checked on a client certificate, which only a ca.crt (without oneWayTls) asks for.
    if (!secret.ca || tls.oneWayTls)
      diagnostics.push(
        fieldError(
          'resolve',
          tls.origin,
          [...tls.path, 'verifySubjectAltName'],
          tls.oneWayTls
            ? 'oneWayTls asks no client certificate, so there are no names to verify'
            : `Secret ${tls.secret} has no ca.crt, so no client certificate is asked for and there are no names to verify`,
          tls.oneWayTls ? 'remove oneWayTls or verifySubjectAltName' : sanHint,
        ),
      );
  }
  for (const u of upstreams) {
    // A Secret in error is reported already; one with ca.crt verifies the upstream. An aws Upstream's TLS is Sluice's (aws-lambda.ts warns).
    if (
      !u.tls ||
      u.lambda ||
      u.tls.files?.rootCa ||
      (u.tls.secret && (!out.has(u.tls.secret) || out.get(u.tls.secret)!.ca))
    )
      continue;
    if (u.tls.verifySubjectAltNames.length > 0)
      diagnostics.push(
        fieldError(
          'resolve',
          u.origin,
          ['spec', 'sslConfig', 'verifySubjectAltName'],
          `upstream ${u.namespace}/${u.name}'s certificate is not verified (no ca.crt), so its names cannot be`,
          sanHint,
        ),
      );
    else
      diagnostics.push(
        asWarning(
          fieldError(
            'resolve',
            u.origin,
            ['spec', 'sslConfig'],
            `Envoy will not verify the certificate of upstream ${u.namespace}/${u.name} (no ca.crt), as Gloo: anyone on the path can pose as it`,
            "reference a Secret whose ca.crt holds the CA that signed the upstream's certificate in sslConfig.secretRef",
          ),
        ),
      );
  }
  return [...out.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function checkParameters(p: TlsParametersIR, origin: Origin, path: FieldPath, diagnostics: Diagnostic[]): void {
  const min = p.minimumProtocolVersion ? VERSION_ORDER.indexOf(p.minimumProtocolVersion) : -1;
  const max = p.maximumProtocolVersion ? VERSION_ORDER.indexOf(p.maximumProtocolVersion) : -1;
  if (min >= 0 && max >= 0 && min > max) {
    diagnostics.push(
      fieldError(
        'resolve',
        origin,
        [...path, 'maximumProtocolVersion'],
        `maximumProtocolVersion ${p.maximumProtocolVersion} is below minimumProtocolVersion ${p.minimumProtocolVersion}: no connection could be made`,
        'raise maximumProtocolVersion or lower minimumProtocolVersion',
      ),
    );
  }
}

type Report = (path: FieldPath, message: string, hint: string, warning?: boolean) => void;

function checkSecret(
  secret: Resource,
  parsed: Parsed,
  use: SecretUse,
  now: number,
  own: Report,
  diagnostics: Diagnostic[],
): TlsSecretIR | undefined {
  let ok = true;
  const fail: Report = (path, message, hint, warning) => {
    if (!warning) ok = false;
    own(path, message, hint, warning);
  };
  const { chain, key, ca } = parsed;
  if (use.needsCertificate && (!chain || !key)) {
    const missing = [chain ? '' : 'tls.crt', key ? '' : 'tls.key'].filter(Boolean).join(' and ');
    diagnostics.push(
      fieldError(
        'resolve',
        use.origin,
        use.path,
        `Secret ${use.secret} has no ${missing}: a server certificate needs both`,
        'reference a kubernetes.io/tls Secret (kubectl create secret tls NAME --cert=tls.crt --key=tls.key)',
      ),
    );
    return undefined;
  }
  if (!use.needsCertificate && !chain && !key && !ca) {
    diagnostics.push(
      fieldError(
        'resolve',
        use.origin,
        use.path,
        `Secret ${use.secret} has none of tls.crt, tls.key, ca.crt`,
        "put the CA that signed the upstream's certificate in ca.crt (and a client certificate in tls.crt and tls.key)",
      ),
    );
    return undefined;
  }
  if (!!chain !== !!key) {
    const present = chain ? 'tls.crt' : 'tls.key';
    fail(
      ['metadata', 'name'],
      `Secret has ${present} without ${chain ? 'tls.key' : 'tls.crt'}`,
      'a certificate needs its private key, and a key its certificate: add the other one or remove this one',
    );
  }
  const pemHint =
    'paste the PEM text as written by openssl or kubectl create secret tls (in stringData, or base64 in data)';
  for (const part of [chain, ca]) {
    if (!part) continue;
    if ('problem' in part) {
      fail(part.path, part.problem, pemHint);
      continue;
    }
    part.certs.forEach((cert, i) => {
      const which = `${part.path[part.path.length - 1]} certificate ${i + 1} (${cert.subject.replace(/\n/g, ', ')})`;
      if (Date.parse(cert.validTo) < now)
        fail(part.path, `${which} expired on ${cert.validTo}`, 'renew the certificate');
      else if (Date.parse(cert.validFrom) > now)
        fail(part.path, `${which} is not valid before ${cert.validFrom}`, 'check the issuing clock, or wait', true);
    });
  }
  if (key && 'problem' in key)
    fail(key.path, key.problem, 'write the private key as PEM, e.g. openssl pkcs8 -topk8 -nocrypt -in key.pem');
  if (chain && 'certs' in chain && key && 'key' in key) {
    const leaf = chain.certs[0]!;
    if (!leaf.checkPrivateKey(key.key))
      fail(
        key.path,
        "tls.key does not match the certificate in tls.crt (the first one, the server's own)",
        'put the private key of that certificate in tls.key, or its certificate first in tls.crt',
      );
    const uncovered = use.domains.filter((d) => !covers(leaf, d));
    if (uncovered.length > 0) {
      diagnostics.push(
        asWarning(
          fieldError(
            'resolve',
            use.origin,
            use.path,
            `the certificate of Secret ${use.secret} does not cover ${uncovered.map(quote).join(', ')}: clients will refuse the connection`,
            'issue a certificate whose subject alternative names include every domain and sniDomain of the VirtualService',
          ),
        ),
      );
    }
  }
  if (!ok) return undefined;
  return {
    name: use.secret,
    ...(chain && 'text' in chain && key && 'text' in key
      ? { certificate: { chain: chain.text, privateKey: key.text, ...ocspStaple(secret) } }
      : {}),
    ...(ca && 'text' in ca ? { ca: ca.text } : {}),
  };
}

/** The Secret's OCSP response (binary, so only in `data`, base64), as Gloo's `glooctl create secret tls` stores it. */
function ocspStaple(secret: Resource): { ocspStaple?: string } {
  const data = (secret.value as { data?: Record<string, string> }).data?.['tls.ocsp-staple'];
  return typeof data === 'string' && data.length > 0 ? { ocspStaple: data } : {};
}

/** Whether the certificate's names cover a VirtualService domain (`*` and other wildcard patterns than `*.` are not checked). */
function covers(cert: X509Certificate, domain: string): boolean {
  const host = domain.replace(/:\d+$/, '');
  if (isIP(host)) return cert.checkIP(host) !== undefined;
  if (host.includes('*') && !host.startsWith('*.')) return true;
  // A wildcard domain is covered by a wildcard certificate for it: any one name under it must match.
  const probe = host.startsWith('*.') ? `sluice-probe${host.slice(1)}` : host;
  return cert.checkHost(probe) !== undefined;
}
