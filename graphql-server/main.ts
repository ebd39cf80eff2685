/** `sluice-graphql`: runs until SIGTERM/SIGINT, then finishes the requests in flight and exits 0. */
import { CommanderError } from 'commander';
import { parseArgs } from './cli.js';
import { startGraphql } from './server.js';

async function main(): Promise<void> {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
    throw err;
  }
  const running = await startGraphql(opts);
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
  console.error(`sluice-graphql: ${(err as Error).message}`);
  process.exit(1);
});
