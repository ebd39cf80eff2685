/**
 * What the OIDC configs of one sidecar share: one Provider per provider and
 * client (discovery and JWKS kept across configuration sets while their
 * settings stay the same), one Redis connection per address and db, and the
 * sidecar's own cookie key for configs that name none.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ModuleContext, ModuleInstance } from '../../module.js';
import { oidcCheck } from './flow.js';
import { Provider } from './provider.js';
import { sealer } from './seal.js';
import { connectRedis, cookieStore, redisStore } from './sessions.js';
import type { OidcSettings } from './settings.js';

const DEFAULT_REDIS_TTL_S = 30 * 24 * 3600;

const providerKey = (s: OidcSettings) =>
  JSON.stringify([
    s.issuerUrl,
    s.clientId,
    s.clientSecret,
    s.discoveryOverride,
    s.discoveryPollIntervalMs,
    s.authEndpointQueryParams,
    s.tokenEndpointParams,
    s.appUrl,
    s.callbackPath,
  ]);

/** Shared resources of one kind, kept across sets while some config still uses them. */
class Shared<T> {
  private inForce = new Map<string, T>();
  constructor(
    private readonly make: (key: string) => T,
    private readonly release: (value: T) => void,
  ) {}

  next(): { get(key: string): T; commit(): void; abort(): void } {
    const used = new Map<string, T>();
    const made: T[] = [];
    return {
      get: (key) => {
        let v = used.get(key) ?? this.inForce.get(key);
        if (v === undefined) made.push((v = this.make(key)));
        used.set(key, v);
        return v;
      },
      commit: () => {
        for (const [k, v] of this.inForce) if (!used.has(k)) this.release(v);
        this.inForce = used;
      },
      abort: () => made.forEach(this.release),
    };
  }

  closeAll(): void {
    this.inForce.forEach(this.release);
    this.inForce.clear();
  }
}

export function oidcInstance(context: ModuleContext): ModuleInstance<OidcSettings> {
  const logger = context.logger;
  // Configs without cookie keys seal with this one: sessions last as long as this sidecar.
  const ownKey = randomBytes(32);
  const bySettings = new Map<string, OidcSettings>();
  const providers = new Shared<Provider>(
    (key) => new Provider(bySettings.get(key)!, logger, context.tracer),
    (p) => p.close(),
  );
  const redises = new Shared<Redis>(
    (key) => {
      const [address, db] = JSON.parse(key) as [string, number];
      return connectRedis(address, db, logger);
    },
    (r) => {
      // Closed on purpose: not an outage to report.
      r.removeAllListeners('close');
      r.disconnect();
    },
  );
  return {
    prepare(all) {
      const p = providers.next();
      const r = redises.next();
      try {
        const checks = new Map(
          all.map((s) => {
            const key = providerKey(s);
            bySettings.set(key, s);
            const keys = s.session.cipherKeys.length
              ? s.session.cipherKeys.map((k) => Buffer.from(k, 'utf8'))
              : [ownKey];
            const seal = sealer(keys);
            const redis = s.session.redis;
            const store = redis
              ? redisStore(
                  r.get(JSON.stringify([redis.address, redis.db])),
                  redis.keyPrefix,
                  (s.session.cookie.maxAgeSeconds || DEFAULT_REDIS_TTL_S) * 1000,
                  seal,
                )
              : cookieStore(seal);
            return [s, oidcCheck(s, p.get(key), store, seal)];
          }),
        );
        if (all.some((s) => !s.session.cipherKeys.length))
          logger.warn(
            'an oidcAuthorizationCode config names no cookie key (session.cipherConfig): its sessions are sealed with a key of this sidecar only',
          );
        return {
          check: (s) => checks.get(s)!,
          commit: () => {
            p.commit();
            r.commit();
            bySettings.clear();
          },
          abort: () => {
            p.abort();
            r.abort();
            bySettings.clear();
          },
        };
      } catch (err) {
        p.abort();
        r.abort();
        throw err;
      }
    },
    close: async () => {
      providers.closeAll();
      redises.closeAll();
    },
  };
}
