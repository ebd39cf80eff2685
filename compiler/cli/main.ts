/**
 * The `sluice` command line. Each command lives in its own module and
 * registers itself; only the module of the command asked for is loaded, so
 * `sluice explain` does not pay for what `sluice serve` imports (the xDS and
 * HTTP servers). Help and unknown commands load them all.
 */
import { Command } from 'commander';
import { VERSION } from '../../runtime/version.js';

type CommandModule = Promise<{ register(program: Command): void }>;

const COMMANDS: Record<string, () => CommandModule> = {
  compile: () => import('./compile.js'),
  validate: () => import('./compile.js'),
  create: () => import('./create.js'),
  serve: () => import('./serve.js'),
  bootstrap: () => import('./bootstrap.js'),
  explain: () => import('./explain.js'),
  test: () => import('./test.js'),
  crds: () => import('./crds.js'),
  check: () => import('./check.js'),
};

const program = new Command('sluice')
  .description(
    'Sluice: a declarative gateway for Envoy. Compiles VirtualService, Upstream, AuthConfig and GraphQLApi resources into Envoy configuration.',
  )
  .version(VERSION, '-V, --version', 'print the version')
  .showHelpAfterError()
  .exitOverride((err) => process.exit(err.exitCode === 1 ? 2 : err.exitCode));

const asked = process.argv[2];
const loaders = Object.hasOwn(COMMANDS, asked)
  ? [COMMANDS[asked]]
  : asked === '-V' || asked === '--version'
    ? []
    : Object.values(COMMANDS);
// `compile` and `validate` share a module, which registers both once.
const modules = new Set(await Promise.all(loaders.map((load) => load())));
for (const module of modules) module.register(program);

await program.parseAsync(process.argv);
