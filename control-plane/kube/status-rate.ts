/**
 * A token bucket for the status writes: `burst` writes at once, then
 * `perSecond` on average, so a compile that changes the status of a
 * thousand resources (a first sync, a broken shared Upstream) spreads its
 * writes instead of sending a thousand requests to the API server at once.
 * The clock and the wait are injected so tests need no real time.
 */
export interface TokenBucketOptions {
  perSecond: number;
  burst: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** client-go's default client limits (QPS 5, burst 10) doubled: status writes are small, but a thousand at once must still wait. */
export const STATUS_WRITE_RATE = { perSecond: 10, burst: 20 } as const;

export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: TokenBucketOptions) {
    this.now = options.now ?? (() => performance.now());
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()));
    this.tokens = options.burst;
    this.last = this.now();
  }

  /** How long (ms) until a token is free; 0 takes it now. */
  private refill(): number {
    const now = this.now();
    this.tokens = Math.min(this.options.burst, this.tokens + ((now - this.last) * this.options.perSecond) / 1000);
    this.last = now;
    return this.tokens >= 1 ? 0 : ((1 - this.tokens) * 1000) / this.options.perSecond;
  }

  /** Takes a token, waiting for one when the bucket is empty. Callers take one at a time (the writer is one loop). */
  async take(): Promise<void> {
    for (let wait = this.refill(); wait > 0; wait = this.refill()) await this.sleep(wait);
    this.tokens -= 1;
  }
}
