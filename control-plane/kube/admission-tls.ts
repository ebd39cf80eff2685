/**
 * The webhook's serving certificate. `--webhook-self-signed NAME`: a CA and
 * a certificate for the Service NAME in the install namespace, made at start
 * (selfsigned), and the CA written into the caBundle of the
 * ValidatingWebhookConfiguration NAME beside the other replicas' CAs, so
 * the API server trusts this replica and nothing needs renewing (every start
 * makes new ones). `--webhook-cert-dir DIR`: tls.crt
 * and tls.key as cert-manager's Secret mounts them, read again when the
 * directory changes (the kubelet swaps a mounted Secret's files when it is
 * renewed).
 */
import { randomUUID } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AdmissionregistrationV1Api } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { generate } from 'selfsigned';

export interface ServingCertificate {
  cert: string;
  key: string;
}

/** Long enough for any pod's life; a new pod makes new ones. */
const VALID_DAYS = 3650;

/** The names the API server may dial a Service by: it uses `<service>.<namespace>.svc`. */
export function serviceDnsNames(service: string, namespace: string): string[] {
  return [
    service,
    `${service}.${namespace}`,
    `${service}.${namespace}.svc`,
    `${service}.${namespace}.svc.cluster.local`,
  ];
}

/** A CA, and a serving certificate it signs for `dnsNames` (and `ips`, for tests on 127.0.0.1). */
export async function selfSignedCertificate(
  dnsNames: readonly string[],
  ips: readonly string[] = [],
): Promise<ServingCertificate & { ca: string }> {
  const notBeforeDate = new Date();
  const notAfterDate = new Date(notBeforeDate.getTime() + VALID_DAYS * 86_400_000);
  const common = { keyType: 'ec', curve: 'P-256', algorithm: 'sha256', notBeforeDate, notAfterDate } as const;
  // A name of its own: several replicas' CAs share the caBundle, and TLS clients look an issuer up by its name.
  const ca = await generate([{ name: 'commonName', value: `sluice webhook CA ${randomUUID()}` }], {
    ...common,
    extensions: [
      { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const serving = await generate([{ name: 'commonName', value: dnsNames[0] ?? 'sluice-webhook' }], {
    ...common,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...dnsNames.map((value) => ({ type: 2 as const, value })),
          ...ips.map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  });
  return { cert: serving.cert, key: serving.private, ca: ca.cert };
}

/** CAs the caBundle keeps: the replicas running now and those a rolling update starts, with room to spare. */
export const CA_BUNDLE_LIMIT = 8;

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----\n?/g;

/** The CAs of a PEM bundle, each ending in a newline. */
const certificatesOf = (pem: string): string[] =>
  (pem.match(PEM_CERTIFICATE) ?? []).map((c) => (c.endsWith('\n') ? c : `${c}\n`));

/**
 * `caPem` added to the caBundle of every webhook of the
 * ValidatingWebhookConfiguration `name`, beside the CAs already there (each
 * serve replica makes its own certificate, and the API server must trust
 * whichever replica the Service picks), the oldest dropped past
 * CA_BUNDLE_LIMIT. A JSON patch with a test of the resourceVersion, so two
 * replicas starting at once do not drop each other's CA: the one that loses
 * reads again. Returns whether the bundle had to change.
 */
export async function addToCaBundle(api: AdmissionregistrationV1Api, name: string, ca: string): Promise<boolean> {
  const caPem = certificatesOf(ca)[0];
  if (!caPem) throw new Error('not a PEM certificate');
  for (let attempt = 1; ; attempt++) {
    const configuration = await api.readValidatingWebhookConfiguration({ name });
    const webhooks = configuration.webhooks ?? [];
    const bundles = webhooks.map((w) =>
      w.clientConfig.caBundle ? Buffer.from(w.clientConfig.caBundle, 'base64').toString() : '',
    );
    if (bundles.every((b) => certificatesOf(b).includes(caPem))) return false;
    const operations = [
      { op: 'test', path: '/metadata/resourceVersion', value: configuration.metadata?.resourceVersion },
      ...bundles.map((bundle, i) => {
        const others = certificatesOf(bundle).filter((c) => c !== caPem);
        const kept = [...others.slice(-(CA_BUNDLE_LIMIT - 1)), caPem].join('');
        return { op: 'add', path: `/webhooks/${i}/clientConfig/caBundle`, value: Buffer.from(kept).toString('base64') };
      }),
    ];
    try {
      await api.patchValidatingWebhookConfiguration({ name, body: operations });
      return true;
    } catch (err) {
      // 409 or 422 (the test failed): changed since the read. Give up after a few rounds; the caller tries again later.
      const code = (err as { code?: number }).code;
      if ((code !== 409 && code !== 422) || attempt >= 5) throw err;
    }
  }
}

/** tls.crt and tls.key of `dir`. */
export async function readCertificateDir(dir: string): Promise<ServingCertificate> {
  const [cert, key] = await Promise.all([
    readFile(path.join(dir, 'tls.crt'), 'utf8'),
    readFile(path.join(dir, 'tls.key'), 'utf8'),
  ]);
  return { cert, key };
}

/** Calls `reload` with the directory's certificate after each burst of changes in it; a pair that cannot be read keeps the one in use. */
export function watchCertificateDir(
  dir: string,
  reload: (certificate: ServingCertificate) => void,
  logger: Logger,
  quietMs = 500,
): FSWatcher {
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(dir, () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      // A pair caught half-written (the key of one renewal, the certificate of another) fails here or in reload: kept as it was.
      readCertificateDir(dir)
        .then((certificate) => {
          reload(certificate);
          logger.info({ dir }, 'webhook certificate reloaded');
        })
        .catch((err: Error) =>
          logger.warn({ dir, err: err.message }, 'webhook certificate not reloaded: keeping the one in use'),
        );
    }, quietMs);
  });
  watcher.on('close', () => clearTimeout(timer));
  return watcher;
}
