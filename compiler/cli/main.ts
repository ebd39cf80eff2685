/** The `sluice` command line. Each command lives in its own module and registers itself. */
import { Command } from 'commander';
import { VERSION } from '../../runtime/version.js';
import { register as registerCompile } from './compile.js';
import { register as registerCreate } from './create.js';
import { register as registerCrds } from './crds.js';
import { register as registerServe } from './serve.js';
import { register as registerBootstrap } from './bootstrap.js';
import { register as registerExplain } from './explain.js';
import { register as registerTest } from './test.js';

const program = new Command('sluice')
  .description(
    'Sluice: a declarative gateway for Envoy. Compiles VirtualService, Upstream, AuthConfig and GraphQLApi resources into Envoy configuration.',
  )
  .version(VERSION, '-V, --version', 'print the version')
  .showHelpAfterError()
  .exitOverride((err) => process.exit(err.exitCode === 1 ? 2 : err.exitCode));

for (const register of [
  registerCompile,
  registerCreate,
  registerServe,
  registerBootstrap,
  registerExplain,
  registerTest,
  registerCrds,
])
  register(program);

await program.parseAsync(process.argv);
