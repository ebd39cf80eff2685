/** `sluice-extauth`: runs until SIGTERM/SIGINT, then finishes in-flight checks and exits 0. */
import { runSidecar } from '../runtime/binary.js';
import { parseArgs } from './cli.js';
import { extauthLogger, startExtauth } from './server.js';

runSidecar({
  name: 'sluice-extauth',
  parseArgs,
  logger: extauthLogger,
  start: startExtauth,
  draining: 'finishing the checks in flight',
});
