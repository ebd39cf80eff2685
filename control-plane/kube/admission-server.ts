/**
 * The admission webhook over HTTPS: POST /validate takes an AdmissionReview
 * v1 and answers with its verdict (admission-review.ts). Each review has a
 * time budget under the webhook's `timeoutSeconds` (5 s in the install): a
 * check that does not finish in time is answered "not allowed", as the
 * install's `failurePolicy: Fail` would decide once the API server gives up;
 * a check that fails is refused too (fail closed). The certificate can be
 * swapped while serving (a renewed cert-manager Secret).
 */
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import {
  admissionRequest,
  BadReview,
  review,
  reviewOf,
  type AdmissionResponse,
  type CheckObjects,
  type KubeObject,
} from './admission-review.js';
import type { ServingCertificate } from './admission-tls.js';

export interface WebhookOptions {
  host: string;
  port: number;
  certificate: ServingCertificate;
  /** The objects of Sluice's kinds and what they read that the cluster holds now (the watch's). */
  cluster: () => readonly KubeObject[];
  check: CheckObjects;
  logger: Logger;
  /** How long a review may take before it is refused; default 4 s, under the install's 5 s timeoutSeconds. */
  budgetMs?: number;
}

export const WEBHOOK_PATH = '/validate';
export const REVIEW_BUDGET_MS = 4_000;
/** An AdmissionReview holds the object and the old one; the API server's own limit per object is 1.5 MiB. */
const BODY_LIMIT = 4 << 20;

export interface Webhook {
  port: number;
  /** Serves `certificate` from the next connection on. */
  reload(certificate: ServingCertificate): void;
  close(): Promise<void>;
}

class TooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        reject(new TooLarge(`an AdmissionReview over ${BODY_LIMIT} bytes`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** `work`, or `late()` once `ms` have passed. */
async function within<T>(ms: number, work: Promise<T>, late: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(late()), ms)));
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const refused = (uid: string, code: number, message: string): AdmissionResponse => ({
  uid,
  allowed: false,
  status: { code, message },
});

export async function startWebhook(options: WebhookOptions): Promise<Webhook> {
  const { logger } = options;
  const budget = options.budgetMs ?? REVIEW_BUDGET_MS;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || req.url?.split('?')[0] !== WEBHOOK_PATH)
      return send(res, 404, { message: `POST an AdmissionReview to ${WEBHOOK_PATH}` });
    let request;
    try {
      request = admissionRequest(JSON.parse(await readBody(req)));
    } catch (err) {
      const code = err instanceof TooLarge ? 413 : 400;
      const message =
        err instanceof BadReview || err instanceof TooLarge ? err.message : `not JSON: ${(err as Error).message}`;
      return send(res, code, { message });
    }
    const started = performance.now();
    const response = await within(
      budget,
      review(request, options.cluster(), options.check).catch((err: Error) => {
        logger.error({ uid: request.uid, err: err.message }, 'admission check failed: refusing');
        return refused(request.uid, 500, `Sluice could not check the resource: ${err.message}`);
      }),
      () => refused(request.uid, 504, `Sluice could not check the resource within ${budget / 1000} s; try again`),
    );
    logger.info(
      {
        uid: request.uid,
        operation: request.operation,
        kind: request.kind.kind,
        namespace: request.namespace,
        name: request.name,
        dryRun: request.dryRun === true,
        allowed: response.allowed,
        warnings: response.warnings?.length ?? 0,
        durationMs: Math.round(performance.now() - started),
      },
      'admission review',
    );
    send(res, 200, reviewOf(response));
  };
  const server = https.createServer({ cert: options.certificate.cert, key: options.certificate.key }, (req, res) => {
    handle(req, res).catch((err: Error) => {
      logger.error({ err: err.message }, 'admission webhook: request failed');
      if (!res.headersSent) send(res, 500, { message: err.message });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    reload: (certificate) => server.setSecureContext({ cert: certificate.cert, key: certificate.key }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
