/** `sluice-graphql`: runs until SIGTERM/SIGINT, then finishes the requests in flight and exits 0. */
import { runSidecar } from '../runtime/binary.js';
import { parseArgs } from './cli.js';
import { graphqlLogger, startGraphql } from './server.js';

runSidecar({
  name: 'sluice-graphql',
  parseArgs,
  logger: graphqlLogger,
  start: startGraphql,
  draining: 'finishing the requests in flight',
});
