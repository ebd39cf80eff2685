/**
 * Where a session's tokens are kept: in the session cookie itself, sealed
 * (./seal.ts), or in Redis under a random id the cookie carries, the value
 * sealed there too. Redis is reached with ioredis: commands fail at once
 * while it is down (no offline queue) and the connection is made again
 * every half second at most, so a Redis that comes back serves the next
 * request.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Pending } from '../../module.js';
import type { Sealer } from './seal.js';

/** What a session keeps: the tokens, when they need refreshing, and the ID token's claims the headers need. */
export interface Stored {
  idToken: string;
  accessToken: string;
  refreshToken?: string;
  expiresAt: number;
  claims: Record<string, unknown>;
}

/** The session could not be read (Redis down or too slow). */
export const FETCH_FAILED = Symbol('fetch failed');

export interface SessionStore {
  /** The session the cookie names; undefined when there is none or it cannot be opened. */
  read(cookie: string): Pending<Stored | undefined | typeof FETCH_FAILED>;
  /** Keeps the session (under `cookie`'s id when given) and gives the cookie value; throws when it cannot. */
  write(stored: Stored, cookie?: string): Pending<string>;
  remove(cookie: string): Promise<void>;
}

const PURPOSE = 'session';

function parse(text: string | undefined): Stored | undefined {
  if (text === undefined) return undefined;
  try {
    const s = JSON.parse(text) as Stored;
    return typeof s.idToken === 'string' && typeof s.accessToken === 'string' && typeof s.expiresAt === 'number'
      ? s
      : undefined;
  } catch {
    return undefined;
  }
}

export function cookieStore(sealer: Sealer): SessionStore {
  return {
    read: (cookie) => parse(sealer.open(PURPOSE, cookie)),
    write: (stored) => sealer.seal(PURPOSE, JSON.stringify(stored)),
    remove: async () => {},
  };
}

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export function redisStore(redis: Redis, keyPrefix: string, ttlMs: number, sealer: Sealer): SessionStore {
  return {
    read(cookie) {
      if (!SESSION_ID.test(cookie)) return undefined;
      return redis.get(keyPrefix + cookie).then(
        (value) => (value === null ? undefined : parse(sealer.open(PURPOSE, value))),
        () => FETCH_FAILED,
      );
    },
    async write(stored, cookie) {
      const id = cookie && SESSION_ID.test(cookie) ? cookie : randomBytes(32).toString('base64url');
      await redis.set(keyPrefix + id, sealer.seal(PURPOSE, JSON.stringify(stored)), 'PX', ttlMs);
      return id;
    },
    async remove(cookie) {
      if (SESSION_ID.test(cookie)) await redis.del(keyPrefix + cookie);
    },
  };
}

/** A connection to one Redis (host:port, db), shared by every config that names it. */
export function connectRedis(address: string, db: number, logger: Logger): Redis {
  const at = address.lastIndexOf(':');
  const redis = new Redis({
    host: at > 0 ? address.slice(0, at) : address,
    port: at > 0 ? Number(address.slice(at + 1)) : 6379,
    db,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 1000,
    connectTimeout: 1000,
    retryStrategy: (times) => Math.min(times * 100, 500),
  });
  let down = false;
  // A connection lost ('close') or not made ('error'): said once, and once again when it is back.
  const lost = (why: string) => {
    if (!down) logger.warn({ redis: address, err: why }, 'Redis unreachable: sessions kept there cannot be read');
    down = true;
  };
  redis.on('error', (err: Error) => lost(err.message));
  redis.on('close', () => lost('connection closed'));
  redis.on('ready', () => {
    if (down) logger.info({ redis: address }, 'Redis reachable again');
    down = false;
  });
  return redis;
}
