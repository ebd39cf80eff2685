/** Command line of the example services: `--port` (0: any free port) and `--host`, and the ready line npm start waits for. */
import { parseArgs } from 'node:util';

export interface ServiceArgs {
  port: number;
  host: string;
  values: Record<string, string | undefined>;
}

/** Parses `--port`, `--host` and the program's own string options; a bad value exits with what to do. */
export function serviceArgs(program: string, own: Record<string, { default?: string }> = {}): ServiceArgs {
  const options = Object.fromEntries(Object.entries(own).map(([name, o]) => [name, { type: 'string' as const, ...o }]));
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' }, ...options },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(
      `${program}: --port must be a port number (0-65535, 0 for any free port), got ${JSON.stringify(values.port)}`,
    );
    process.exit(2);
  }
  return { port, host: values.host as string, values: values as Record<string, string | undefined> };
}

/** The one line `npm start` reads to learn where a service listens (scripts/start.ts). */
export function announce(program: string, url: string): void {
  console.log(`${program} listening on ${url}`);
}

/** Runs `stop` on SIGINT or SIGTERM, then exits 0. */
export function stopOnSignals(stop: () => Promise<void> | void): void {
  const onSignal = () => void Promise.resolve(stop()).then(() => process.exit(0));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
}
