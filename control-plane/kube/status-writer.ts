/**
 * Writes the statuses status-desired.ts computes, through the status
 * subresource (never the spec): only where the object does not already say
 * it, at the token bucket's pace, and only while this replica holds the
 * status Lease. A write carries the resourceVersion the object was read at;
 * a 409 Conflict (the object changed since) is retried with a fresh read, and
 * not at all when the fresh object already holds the status or has a new
 * generation (its next compile decides then). Writes left when the Lease is
 * lost are dropped: the next holder compares the cluster with its own
 * verdicts and writes what differs.
 */
import { EventEmitter } from 'node:events';
import type { CustomObjectsApi } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Diagnostic } from '../../compiler/diagnostics.js';
import { pluralOf } from '../../compiler/kinds/crd.js';
import { desiredStatuses, statusHolds, withStatus, type ResourceStatus, type StatusObject } from './status-desired.js';
import type { TokenBucket } from './status-rate.js';

export interface StatusWriterOptions {
  api: CustomObjectsApi;
  /** The install namespace: the key of this install's entry in `status.statuses`. */
  namespace: string;
  rate: TokenBucket;
  logger: Logger;
}

/** Attempts per write: the first, then fresh reads after conflicts. */
const ATTEMPTS = 5;

const statusCode = (err: unknown): number | undefined => (err as { code?: number }).code;

/** What the API server said (its Status object's code, reason and message), else the error's own message (client-node's runs on with the headers). */
function apiErrorMessage(err: Error): string {
  const body = (err as { body?: unknown }).body;
  try {
    const status = JSON.parse(typeof body === 'string' ? body : '') as {
      code?: number;
      reason?: string;
      message?: string;
    };
    if (status.message)
      return `${status.code ?? statusCode(err) ?? ''} ${status.reason ?? ''}: ${status.message}`.trim();
  } catch {
    // not a Status object
  }
  return err.message;
}

interface Where {
  group: string;
  version: string;
  namespace: string;
  plural: string;
  name: string;
}

interface Pending {
  object: StatusObject;
  status: ResourceStatus;
}

/** A status write that failed for good (after its retries), as the admin port shows it. */
export interface StatusWriteFailure {
  resource: string;
  message: string;
  at: Date;
}

export interface StatusWriterEvents {
  written: [];
  failed: [StatusWriteFailure];
}

export class StatusWriter extends EventEmitter<StatusWriterEvents> {
  /** Successful status writes so far. */
  writes = 0;
  /** Writes that failed for good so far, and the last of them. */
  failures = 0;
  lastFailure: StatusWriteFailure | undefined;
  private leading = false;
  private pendingWrites = new Map<string, Pending>();
  /** Per object, what this replica last wrote and the resourceVersion it wrote over: until the watch shows a newer object, the write stands. */
  private written = new Map<string, { status: string; over: string | undefined }>();
  private draining: Promise<void> | undefined;
  /** `apiVersion kind` of the kinds whose CRD has no status subresource. */
  private readonly noSubresource = new Set<string>();

  constructor(private readonly options: StatusWriterOptions) {
    super();
  }

  /** Writes waiting for their turn (or for the Lease). */
  get pending(): number {
    return this.pendingWrites.size;
  }

  /** After a compile: the objects of Sluice's kinds the compile read (under the cluster source's keys), and its diagnostics. */
  update(objects: ReadonlyMap<string, StatusObject>, diagnostics: readonly Diagnostic[]): void {
    const desired = desiredStatuses(objects, diagnostics);
    const pending = new Map<string, Pending>();
    for (const [key, status] of desired) {
      const object = objects.get(key)!;
      if (statusHolds(object.status, this.options.namespace, status)) continue;
      const mine = this.written.get(key);
      if (mine && mine.over === object.metadata.resourceVersion && mine.status === JSON.stringify(status)) continue;
      pending.set(key, { object, status });
    }
    for (const key of this.written.keys()) if (!objects.has(key)) this.written.delete(key);
    this.pendingWrites = pending;
    this.drain();
  }

  setLeading(leading: boolean): void {
    this.leading = leading;
    // A new holder cannot trust what it wrote in an earlier term: another replica may have written since.
    if (leading) this.written.clear();
    this.drain();
  }

  /** Resolves once nothing is left to write (or this replica stops leading). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private drain(): void {
    if (this.draining || !this.leading || this.pendingWrites.size === 0) return;
    this.draining = (async () => {
      while (this.leading && this.pendingWrites.size > 0) {
        const [key, next] = this.pendingWrites.entries().next().value!;
        this.pendingWrites.delete(key);
        await this.write(key, next).catch((err: Error) => {
          const message = apiErrorMessage(err);
          this.options.logger.warn({ resource: key, err: message }, 'status write failed');
          this.failures++;
          this.lastFailure = { resource: key, message, at: new Date() };
          this.emit('failed', this.lastFailure);
        });
      }
      this.draining = undefined;
    })();
  }

  /**
   * A 404 on the status subresource: the object was deleted (its watch event
   * brings the next compile), or its CRD has no status subresource, as
   * Gloo's own CRDs have none. Gloo writes status with the whole object;
   * Sluice does not, since that would rewrite what users own: said once per
   * kind, and its objects are skipped from then on.
   */
  private async notFound(where: Where, object: StatusObject): Promise<void> {
    const exists = await this.options.api.getNamespacedCustomObject(where).then(
      () => true,
      () => false,
    );
    if (!exists) return;
    const kind = `${object.kind} (${object.apiVersion})`;
    this.noSubresource.add(object.apiVersion + ' ' + object.kind);
    this.options.logger.warn(
      { kind },
      `the CRD of ${kind} has no status subresource (Gloo's CRDs have none): no status is written on its objects; apply Sluice's CRDs (sluice crds) to have it, or read the verdicts on serve's /status`,
    );
  }

  private async write(key: string, { object, status }: Pending): Promise<void> {
    const { api, namespace, rate } = this.options;
    const [group, version] = object.apiVersion.split('/') as [string, string];
    const plural = pluralOf(object.kind);
    if (!plural || this.noSubresource.has(object.apiVersion + ' ' + object.kind)) return;
    const where: Where = {
      group,
      version,
      namespace: object.metadata.namespace ?? 'default',
      plural,
      name: object.metadata.name,
    };
    let current = object;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      await rate.take();
      // The Lease may have moved while this write waited for its token.
      if (!this.leading) return;
      try {
        await api.replaceNamespacedCustomObjectStatus({
          ...where,
          body: { ...current, status: withStatus(current.status, namespace, status) },
        });
        this.writes++;
        this.emit('written');
        this.written.set(key, { status: JSON.stringify(status), over: object.metadata.resourceVersion });
        return;
      } catch (err) {
        if (statusCode(err) === 404) return this.notFound(where, object);
        if (statusCode(err) !== 409 || attempt === ATTEMPTS) throw err;
      }
      current = (await api.getNamespacedCustomObject(where)) as StatusObject;
      if ((current.metadata.generation ?? 0) !== status.observedGeneration) return;
      if (statusHolds(current.status, namespace, status)) return;
    }
  }
}
