/**
 * A real Redis for tests: Debian's redis-server on a free 127.0.0.1 port,
 * nothing saved to disk, stopped and started again on the same port to show
 * what the sidecar does while Redis is down and once it is back, or frozen
 * (SIGSTOP) to show what it does while Redis holds its replies.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { canConnect, freePort } from './slapd.js';

const REDIS = '/usr/bin/redis-server';

export interface RedisServer {
  readonly address: string;
  readonly port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the process answering (SIGSTOP): connections stay open, commands get no reply until thaw(). */
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
  if (!existsSync(REDIS))
    throw new Error(
      `${REDIS} not found: the Redis session and rate limit tests need Debian's redis-server; install it with \`apt-get install -y redis-server\``,
    );
  const port = await freePort();
  let child: ChildProcess | undefined;
  let log = '';

  async function start(): Promise<void> {
    if (child) return;
    const proc = spawn(REDIS, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    proc.stdout!.setEncoding('utf8').on('data', (d: string) => (log += d));
    proc.stderr!.setEncoding('utf8').on('data', (d: string) => (log += d));
    const deadline = Date.now() + 10_000;
    while (!(await canConnect(port))) {
      if (proc.exitCode !== null) throw new Error(`redis-server exited with ${proc.exitCode}:\n${log.slice(-2000)}`);
      if (Date.now() > deadline)
        throw new Error(`redis-server did not listen on port ${port} within 10s:\n${log.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function stop(): Promise<void> {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
  }

  await start();
  const signal = (sig: NodeJS.Signals) => () => void child?.kill(sig);
  return {
    address: `127.0.0.1:${port}`,
    port,
    start,
    stop,
    freeze: signal('SIGSTOP'),
    thaw: signal('SIGCONT'),
    async close() {
      child?.kill('SIGCONT');
      await stop();
    },
  };
}
