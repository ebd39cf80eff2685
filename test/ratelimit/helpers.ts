/** What the sluice-ratelimit tests share: a sidecar on a config file and a real Redis, and its client. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startRatelimit, type RatelimitOptions, type RunningRatelimit } from '../../ratelimit-server/server.js';
import { rateLimitCaller, type RateLimitCaller } from '../../harness/ratelimit-client.js';
import { tempDir } from '../../harness/temp-dir.js';
import { testLogger } from '../../harness/log-check.js';
import type { Logger } from 'pino';

export interface Sidecar {
  server: RunningRatelimit;
  call: RateLimitCaller;
  close(): Promise<void>;
}

/** Writes a RateLimitDomainSet file of `domains`. */
export function writeDomains(domains: unknown[], file = path.join(tempDir('ratelimit'), 'ratelimit.json')): string {
  writeFileSync(file, JSON.stringify({ domains }, null, 2));
  return file;
}

export async function startSidecar(
  redis: string,
  source: { config: string } | { xds: string },
  opts: Partial<RatelimitOptions> & { logger?: Logger } = {},
): Promise<Sidecar> {
  const server = await startRatelimit({
    ...source,
    port: 0,
    adminPort: 0,
    host: '127.0.0.1',
    nodeId: 'ratelimit-test',
    redis,
    redisTimeoutMs: 1000,
    denyOnFail: false,
    responseHeaders: false,
    keyPrefix: '',
    logger: testLogger(),
    ...opts,
  });
  const call = rateLimitCaller(server.port);
  return {
    server,
    call,
    async close() {
      call.close();
      await server.close();
    },
  };
}

/** The metrics text of a sidecar. */
export async function metricsOf(s: Sidecar): Promise<string> {
  return (await fetch(`http://127.0.0.1:${s.server.adminPort}/metrics`)).text();
}

/** The value of one sample in a metrics text (0 when absent). */
export function sample(text: string, line: string): number {
  const at = text.split('\n').find((l) => l.startsWith(`${line} `));
  return at ? Number(at.slice(line.length + 1)) : 0;
}
