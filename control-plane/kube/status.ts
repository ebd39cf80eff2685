/**
 * Status reporting as `sluice serve --kube --status-lease NAME` runs it: the
 * Lease decides whether this replica writes, and after every compile of the
 * cluster's objects the writer is given the objects and the diagnostics.
 * Every replica computes the verdicts (they are cheap and pure); only the
 * holder sends them.
 */
import { hostname } from 'node:os';
import { CoordinationV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Diagnostic } from '../../compiler/diagnostics.js';
import { LeaseElector } from './status-lease.js';
import type { LeaseTiming } from './status-lease-timing.js';
import { STATUS_WRITE_RATE, TokenBucket, type TokenBucketOptions } from './status-rate.js';
import type { StatusObject } from './status-desired.js';
import { StatusWriter } from './status-writer.js';

export interface StatusReportingOptions {
  kubeConfig: KubeConfig;
  /** The install namespace: the Lease's, and the key of this install's entry in `status.statuses`. */
  namespace: string;
  /** The Lease's name (--status-lease). */
  lease: string;
  /** The holder identity; default holderIdentity(). */
  identity?: string;
  timing?: LeaseTiming;
  rate?: Pick<TokenBucketOptions, 'perSecond' | 'burst'>;
  logger: Logger;
}

/** The pod's name (POD_NAME, from the downward API), else the host name, which is the pod's name in a cluster too. */
export const holderIdentity = (env: NodeJS.ProcessEnv = process.env): string => env.POD_NAME || hostname();

export class StatusReporter {
  readonly writer: StatusWriter;
  readonly elector: LeaseElector;
  /** The write rate in use (--status-write-rate, --status-write-burst). */
  readonly rate: Pick<TokenBucketOptions, 'perSecond' | 'burst'>;

  constructor(options: StatusReportingOptions) {
    const { kubeConfig, namespace, logger } = options;
    this.rate = options.rate ?? STATUS_WRITE_RATE;
    this.writer = new StatusWriter({
      api: kubeConfig.makeApiClient(CustomObjectsApi),
      namespace,
      rate: new TokenBucket(this.rate),
      logger,
    });
    this.elector = new LeaseElector({
      api: kubeConfig.makeApiClient(CoordinationV1Api),
      namespace,
      name: options.lease,
      identity: options.identity ?? holderIdentity(),
      timing: options.timing,
      logger,
    });
    this.elector.on('leading', () => this.writer.setLeading(true));
    this.elector.on('stopped', () => this.writer.setLeading(false));
  }

  start(): void {
    this.elector.start();
  }

  /** After a compile: the objects of Sluice's kinds it read (under the cluster source's keys), and its diagnostics (errors, or the warnings of a good compile). */
  report(objects: ReadonlyMap<string, StatusObject>, diagnostics: readonly Diagnostic[]): void {
    this.writer.update(objects, diagnostics);
  }

  async stop(): Promise<void> {
    await this.elector.stop();
  }
}
