/**
 * The counters in Redis, shared by every replica: one request's counters in
 * one round trip, a Lua script doing envoyproxy/ratelimit's INCRBY + EXPIRE
 * per key (EVALSHA, loaded once per connection by ioredis). Never waits:
 * while the connection is down a call fails at once (no offline queue, no
 * replay of a sent INCRBY after a reconnect), a call Redis does not answer
 * fails after the timeout, and the connection is tried again at most every
 * second, so counting resumes within about a second of Redis' return.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** KEYS: the counters; ARGV[1]: the addend; ARGV[1 + i]: key i's TTL. Returns the counts after the increment. */
const COUNT_SCRIPT = `
local addend = tonumber(ARGV[1])
local counts = {}
for i, key in ipairs(KEYS) do
  counts[i] = redis.call('INCRBY', key, addend)
  redis.call('EXPIRE', key, ARGV[i + 1])
end
return counts`;

/** Most time between reconnection attempts while Redis is away. */
const MAX_RECONNECT_MS = 1000;

export interface RedisOptions {
  /** `host:port` or a redis:// / rediss:// URL. */
  address: string;
  /** Per call (and per connection attempt) deadline. */
  timeoutMs: number;
  password?: string;
  logger: Logger;
}

type CountingRedis = Redis & { sluiceCount(numKeys: number, ...args: (string | number)[]): Promise<number[]> };

export class RedisCounter {
  private readonly client: CountingRedis;
  /** Whether the loss of the connection was logged (once per outage). */
  private down = false;
  private closing = false;

  constructor(opts: RedisOptions) {
    const url = /^rediss?:\/\//.test(opts.address) ? opts.address : `redis://${opts.address}`;
    this.client = new Redis(url, {
      ...(opts.password ? { password: opts.password } : {}),
      commandTimeout: opts.timeoutMs,
      connectTimeout: Math.max(opts.timeoutMs, 1000),
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 0,
      // Concurrent requests' scripts share one write (and Redis' replies one read).
      enableAutoPipelining: true,
      retryStrategy: (times) => Math.min(times * 100, MAX_RECONNECT_MS),
    }) as CountingRedis;
    this.client.defineCommand('sluiceCount', { lua: COUNT_SCRIPT });
    this.client.on('ready', () => {
      if (this.down) opts.logger.info({ redis: opts.address }, 'reached Redis again; counting resumes');
      this.down = false;
    });
    const lost = (err?: Error) => {
      if (this.down || this.closing) return;
      this.down = true;
      opts.logger.error(
        { redis: opts.address, err: err?.message },
        'cannot reach Redis; answering by the failure mode (--deny-on-fail) until it is back',
      );
    };
    this.client.on('error', lost);
    this.client.on('close', () => lost());
  }

  /** Whether the connection is up (requests are being counted). */
  get connected(): boolean {
    return this.client.status === 'ready';
  }

  /** Increments each key by `addend`, setting its TTL; the counts after. Rejects when Redis cannot answer in time. */
  async count(keys: string[], ttls: number[], addend: number): Promise<number[]> {
    return this.client.sluiceCount(keys.length, ...keys, addend, ...ttls);
  }

  async close(): Promise<void> {
    this.closing = true;
    this.client.disconnect();
  }
}
