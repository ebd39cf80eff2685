/**
 * The admission webhook as `sluice serve` runs it: its certificate
 * (--webhook-self-signed NAME or --webhook-cert-dir DIR), a Compiler of its
 * own for the checks (incremental, so a check of the cluster's set with one
 * object changed compiles little; the serving compiler is left alone), and
 * the HTTPS server.
 */
import type { FSWatcher } from 'node:fs';
import { AdmissionregistrationV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Compiler } from '../../compiler/pipeline.js';
import type { CompileOptions } from '../../compiler/translate/output.js';
import type { KubeObject } from './admission-review.js';
import { startWebhook, type Webhook } from './admission-server.js';
import {
  addToCaBundle,
  readCertificateDir,
  selfSignedCertificate,
  serviceDnsNames,
  watchCertificateDir,
  type ServingCertificate,
} from './admission-tls.js';
import { compileObjects } from './compile-objects.js';

export interface AdmissionOptions {
  host: string;
  port: number;
  /** The install namespace: the webhook's Service is there. */
  namespace: string;
  /** --webhook-self-signed: the name of the webhook's Service and of its ValidatingWebhookConfiguration. */
  selfSigned?: string;
  /** --webhook-cert-dir: tls.crt and tls.key, as a mounted Secret holds them. */
  certDir?: string;
  kubeConfig: KubeConfig;
  /** The objects the cluster holds now (the watch's). */
  cluster: () => readonly KubeObject[];
  compileOptions: CompileOptions;
  logger: Logger;
  budgetMs?: number;
  /** How often a self-signed replica checks that its CA is still in the caBundle. */
  caCheckMs?: number;
}

export interface Admission {
  webhook: Webhook;
  close(): Promise<void>;
}

/** Once a minute: another replica may have pushed this one's CA out of the bundle, or the configuration was applied again without it. */
const CA_CHECK_MS = 60_000;

export async function startAdmission(options: AdmissionOptions): Promise<Admission> {
  const { logger } = options;
  if (!options.selfSigned === !options.certDir)
    throw new Error('the webhook needs one certificate source: --webhook-self-signed NAME or --webhook-cert-dir DIR');
  let certificate: ServingCertificate;
  let ca: string | undefined;
  if (options.certDir) certificate = await readCertificateDir(options.certDir);
  else {
    const made = await selfSignedCertificate(serviceDnsNames(options.selfSigned!, options.namespace));
    certificate = made;
    ca = made.ca;
  }
  const compiler = new Compiler(options.compileOptions);
  const webhook = await startWebhook({
    host: options.host,
    port: options.port,
    certificate,
    cluster: options.cluster,
    check: async (objects) => compileObjects(compiler, objects).diagnostics,
    logger,
    budgetMs: options.budgetMs,
  });
  let watcher: FSWatcher | undefined;
  let caTimer: NodeJS.Timeout | undefined;
  if (options.certDir) watcher = watchCertificateDir(options.certDir, webhook.reload, logger);
  else {
    const api = options.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
    const name = options.selfSigned!;
    const publish = () =>
      addToCaBundle(api, name, ca!).then(
        (changed) => changed && logger.info({ webhook: name }, "webhook CA added to the configuration's caBundle"),
        (err: Error) =>
          logger.error(
            { webhook: name, err: err.message },
            'could not write the webhook CA into the ValidatingWebhookConfiguration: the API server cannot reach this replica (failurePolicy decides); retrying',
          ),
      );
    await publish();
    caTimer = setInterval(() => void publish(), options.caCheckMs ?? CA_CHECK_MS);
  }
  logger.info(
    {
      port: webhook.port,
      certificate: options.certDir ?? `self-signed for ${options.selfSigned}.${options.namespace}.svc`,
    },
    'admission webhook listening',
  );
  return {
    webhook,
    async close() {
      clearInterval(caTimer);
      watcher?.close();
      await webhook.close();
    },
  };
}
