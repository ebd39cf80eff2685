/** `sluice-extauth`: runs until SIGTERM/SIGINT, then finishes in-flight checks and exits 0. */
import { CommanderError } from 'commander';
import { parseArgs } from './cli.js';
import { startExtauth } from './server.js';

async function main(): Promise<void> {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
    throw err;
  }
  const running = await startExtauth(opts);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  console.error(`sluice-extauth: ${(err as Error).message}`);
  process.exit(1);
});
