/**
 * Which serve replica writes status: the holder of a coordination.k8s.io/v1
 * Lease, as client-go's leader election decides it (client-node has none).
 * Every retry period a replica reads the Lease; it takes it when nobody
 * holds it or the holder has not renewed it for a lease duration (measured
 * on this replica's clock from when it last saw the Lease change, so the
 * replicas' clocks need not agree), and the holder renews it. A holder that
 * cannot renew within the renew deadline stops writing before its Lease can
 * expire for the others. Updates carry the resourceVersion read, so of two
 * replicas taking a free Lease at once one gets 409 Conflict and stays out.
 * Serving needs no leader: only status writes wait for the Lease.
 */
import { EventEmitter } from 'node:events';
import { V1MicroTime, type CoordinationV1Api, type V1Lease } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { LEASE_DEFAULTS, type LeaseTiming } from './status-lease-timing.js';

export interface LeaseElectorOptions {
  api: CoordinationV1Api;
  namespace: string;
  name: string;
  /** This replica's holder identity: POD_NAME, else the host name. */
  identity: string;
  timing?: LeaseTiming;
  logger: Logger;
}

export interface LeaseEvents {
  /** This replica now holds the Lease. */
  leading: [];
  /** It no longer does (lost, or released at stop). */
  stopped: [];
}

const statusCode = (err: unknown): number | undefined => (err as { code?: number }).code;

export class LeaseElector extends EventEmitter<LeaseEvents> {
  leading = false;
  /** When this replica last took or renewed the Lease (its clock). */
  renewedAt: Date | undefined;
  private readonly timing: LeaseTiming;
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  /** The Lease spec last seen, and when (this replica's clock) it last changed. */
  private observed = '';
  private observedAt = 0;
  private lastRenew = 0;
  private round: Promise<void> = Promise.resolve();

  constructor(private readonly options: LeaseElectorOptions) {
    super();
    this.timing = options.timing ?? LEASE_DEFAULTS;
  }

  start(): void {
    this.schedule(0);
  }

  /** Stops trying; a holder releases the Lease (client-go's ReleaseOnCancel) so another replica takes it at its next try instead of after a lease duration. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.round;
    if (!this.leading) return;
    this.setLeading(false);
    await this.release().catch((err: Error) =>
      this.options.logger.warn({ lease: this.options.name, err: err.message }, 'could not release the status Lease'),
    );
  }

  private schedule(ms: number): void {
    if (this.stopping) return;
    this.timer = setTimeout(() => {
      this.round = this.tryOnce().finally(() => this.schedule(this.timing.retryPeriodMs));
    }, ms);
  }

  private async tryOnce(): Promise<void> {
    let held = false;
    try {
      held = await this.acquireOrRenew();
    } catch (err) {
      this.options.logger.warn(
        { lease: this.options.name, err: (err as Error).message },
        'status Lease: request failed',
      );
    }
    if (this.stopping) return;
    const now = Date.now();
    if (held) {
      this.lastRenew = now;
      this.renewedAt = new Date(now);
      if (!this.leading) this.setLeading(true);
    } else if (this.leading && now - this.lastRenew >= this.timing.renewDeadlineMs) this.setLeading(false);
  }

  private setLeading(leading: boolean): void {
    this.leading = leading;
    this.options.logger.info(
      { lease: this.options.name, identity: this.options.identity },
      leading ? 'holding the status Lease: writing status' : 'no longer holding the status Lease: not writing status',
    );
    this.emit(leading ? 'leading' : 'stopped');
  }

  /** The Lease's name and this replica's identity, and the timing it uses. */
  get lease(): { name: string; namespace: string; identity: string; timing: LeaseTiming } {
    const { name, namespace, identity } = this.options;
    return { name, namespace, identity, timing: this.timing };
  }

  private get durationSeconds(): number {
    return Math.max(1, Math.ceil(this.timing.leaseDurationMs / 1000));
  }

  /** client-go's tryAcquireOrRenew: whether this replica holds the Lease after the call. */
  private async acquireOrRenew(): Promise<boolean> {
    const { api, namespace, name, identity } = this.options;
    const now = Date.now();
    let lease: V1Lease;
    try {
      lease = await api.readNamespacedLease({ name, namespace });
    } catch (err) {
      if (statusCode(err) !== 404) throw err;
      const spec = this.spec(now, now, 0);
      try {
        await api.createNamespacedLease({ namespace, body: { metadata: { name, namespace }, spec } });
      } catch (created) {
        if (statusCode(created) === 409) return false; // another replica created it first
        throw created;
      }
      this.observe(JSON.stringify(spec), now);
      return true;
    }
    const spec = lease.spec ?? {};
    this.observe(JSON.stringify(spec), now);
    const transitions = spec.leaseTransitions ?? 0;
    const holder = spec.holderIdentity ?? '';
    const expiresAt = this.observedAt + (spec.leaseDurationSeconds ?? this.durationSeconds) * 1000;
    if (holder !== '' && holder !== identity && expiresAt > now) return false;
    const ours = holder === identity;
    const acquired = ours && spec.acquireTime ? new Date(spec.acquireTime).getTime() : now;
    const next = this.spec(acquired, now, ours ? transitions : transitions + 1);
    try {
      await api.replaceNamespacedLease({ name, namespace, body: { ...lease, spec: next } });
    } catch (err) {
      if (statusCode(err) === 409) return false; // changed since the read: another replica's turn
      throw err;
    }
    this.observe(JSON.stringify(next), now);
    return true;
  }

  private spec(acquiredAt: number, renewedAt: number, transitions: number): V1Lease['spec'] {
    return {
      holderIdentity: this.options.identity,
      leaseDurationSeconds: this.durationSeconds,
      acquireTime: new V1MicroTime(acquiredAt),
      renewTime: new V1MicroTime(renewedAt),
      leaseTransitions: transitions,
    };
  }

  private observe(record: string, now: number): void {
    if (record === this.observed) return;
    this.observed = record;
    this.observedAt = now;
  }

  /** client-go's release: no holder, a one-second duration, the transitions kept. */
  private async release(): Promise<void> {
    const { api, namespace, name, identity } = this.options;
    const lease = await api.readNamespacedLease({ name, namespace });
    if (lease.spec?.holderIdentity !== identity) return;
    const now = new V1MicroTime(Date.now());
    await api.replaceNamespacedLease({
      name,
      namespace,
      body: {
        ...lease,
        spec: {
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: lease.spec.leaseTransitions ?? 0,
        },
      },
    });
  }
}
