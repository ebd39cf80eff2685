/** `sluice-extauth`: runs until SIGTERM/SIGINT, then finishes in-flight checks and exits 0. */
import { CommanderError } from 'commander';
import { logGrpcTo, shutdownOnSignals, startFailed } from '../runtime/binary.js';
import { parseArgs } from './cli.js';
import { extauthLogger, startExtauth } from './server.js';

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
    throw err;
  }
  const { logFormat, ...opts } = args;
  const logger = extauthLogger(logFormat);
  logGrpcTo(logger);
  const running = await startExtauth({ ...opts, logger });
  shutdownOnSignals(logger, 'finishing the checks in flight', () => running.close());
}

main().catch((err: unknown) => startFailed('sluice-extauth', err));
