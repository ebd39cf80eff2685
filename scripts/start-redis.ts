/**
 * Redis for the local stack's sluice-ratelimit: Debian's redis-server on a
 * free loopback port (harness/redis.ts), nothing saved. Without it, the
 * sidecar still runs and answers by its failure mode (every request allowed,
 * counted in sluice_ratelimit_redis_failures_total), and `hint` says what to
 * install.
 */
import { existsSync } from 'node:fs';
import { startRedis } from '../harness/redis.js';

export interface LocalRedis {
  /** host:port sluice-ratelimit is given (nothing listens on it when not running). */
  address: string;
  running: boolean;
  hint?: string;
  close(): Promise<void>;
}

export async function startLocalRedis(): Promise<LocalRedis> {
  if (!existsSync('/usr/bin/redis-server'))
    return {
      address: '127.0.0.1:6379',
      running: false,
      hint: 'install redis-server to count them: sudo apt-get install -y redis-server (Debian, Ubuntu), then run it again',
      close: async () => undefined,
    };
  const redis = await startRedis();
  return { address: redis.address, running: true, close: () => redis.close() };
}
