/** AuthConfigs from `sluice serve` over ADS (runtime/ads-client.ts), parsed as --config files are. */
import type { Logger } from 'pino';
import { AdsClient, decodeAnys, type AnyResource } from '../runtime/ads-client.js';
import { TYPE_URL } from '../contract/names.js';
import { parseAuthConfig, type AuthConfig, type PoolSettings } from './config.js';

/** The AuthConfigs of one response; throws (a NACK) on the first one that does not parse. */
export function decodeAuthConfigs(resources: AnyResource[], poolDefaults: PoolSettings): AuthConfig[] {
  return decodeAnys(TYPE_URL.authConfig, resources).map((raw, i) =>
    parseAuthConfig(raw, `resource ${i}`, poolDefaults),
  );
}

export interface AuthConfigSourceOptions {
  address: string;
  nodeId: string;
  logger: Logger;
  poolDefaults: PoolSettings;
  /** Applies a set that parsed, all or nothing; throwing NACKs it. */
  apply(configs: AuthConfig[]): void;
}

export function authConfigSource(opts: AuthConfigSourceOptions): AdsClient<AuthConfig[]> {
  return new AdsClient<AuthConfig[]>({
    address: opts.address,
    node: { id: opts.nodeId, cluster: 'sluice-extauth' },
    typeUrl: TYPE_URL.authConfig,
    logger: opts.logger,
    decode: (resources) => decodeAuthConfigs(resources, opts.poolDefaults),
    apply: opts.apply,
  });
}
