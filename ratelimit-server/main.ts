/** `sluice-ratelimit`: runs until SIGTERM/SIGINT, then answers the calls in flight and exits 0. */
import { CommanderError } from 'commander';
import { logGrpcTo, shutdownOnSignals, startFailed } from '../runtime/binary.js';
import { parseArgs } from './cli.js';
import { ratelimitLogger, startRatelimit } from './server.js';

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
    throw err;
  }
  const { logFormat, ...opts } = args;
  const logger = ratelimitLogger(logFormat);
  logGrpcTo(logger);
  const running = await startRatelimit({ ...opts, logger });
  shutdownOnSignals(logger, 'answering the calls in flight', () => running.close());
}

main().catch((err: unknown) => startFailed('sluice-ratelimit', err));
