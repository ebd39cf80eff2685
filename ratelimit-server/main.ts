/** `sluice-ratelimit`: runs until SIGTERM/SIGINT, then answers the calls in flight and exits 0. */
import { runSidecar } from '../runtime/binary.js';
import { parseArgs } from './cli.js';
import { ratelimitLogger, startRatelimit } from './server.js';

runSidecar({
  name: 'sluice-ratelimit',
  parseArgs,
  logger: ratelimitLogger,
  start: startRatelimit,
  draining: 'answering the calls in flight',
});
