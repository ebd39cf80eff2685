/** `sluice-graphql`: runs until SIGTERM/SIGINT, then finishes the requests in flight and exits 0. */
import { CommanderError } from 'commander';
import { logGrpcTo, shutdownOnSignals, startFailed } from '../runtime/binary.js';
import { parseArgs } from './cli.js';
import { graphqlLogger, startGraphql } from './server.js';

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
    throw err;
  }
  const { logFormat, ...opts } = args;
  const logger = graphqlLogger(logFormat);
  logGrpcTo(logger);
  const running = await startGraphql({ ...opts, logger });
  shutdownOnSignals(logger, 'finishing the requests in flight', () => running.close());
}

main().catch((err: unknown) => startFailed('sluice-graphql', err));
