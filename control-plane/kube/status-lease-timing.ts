/**
 * The status Lease's timing, apart from the elector: `serve`'s flags read the
 * defaults without loading the Kubernetes client, which only `--kube` needs.
 */
export interface LeaseTiming {
  /** How long a Lease not renewed keeps others out. */
  leaseDurationMs: number;
  /** How long the holder keeps trying to renew before it stops acting as holder. */
  renewDeadlineMs: number;
  /** How often a replica tries to take or renew the Lease. */
  retryPeriodMs: number;
}

/** client-go's leader election defaults (15 s, 10 s, 2 s). */
export const LEASE_DEFAULTS: LeaseTiming = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };
