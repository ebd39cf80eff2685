/**
 * The flags every sidecar takes (ports, bind address, where its
 * configuration comes from, the log format), so that sluice-extauth,
 * sluice-graphql and sluice-ratelimit read them alike; each adds its own.
 */
import { Command } from 'commander';
import { logFormatOption, portArg, type LogFormat, type SidecarPlace } from './binary.js';
import { VERSION } from './version.js';

export interface SidecarCommand {
  /** The binary's name, also its default xDS node id. */
  name: string;
  description: string;
  /** The port its service listens on, described, and its default. */
  port: { help: string; default: number };
  adminPort: number;
  /** What `sluice compile -o DIR` writes for it (`AuthConfigSet`, `extauth.json`) and what it asks xDS for. */
  config: { set: string; file: string; resources: string };
}

/** The options of a sidecar's command line that all of them share. */
export interface SidecarFlags {
  port: number;
  adminPort: number;
  bind: string;
  config?: string;
  xds?: string;
  nodeId: string;
  logFormat?: LogFormat;
}

/** Where a sidecar listens and gets its configuration from, as its options take it, and its log format. */
export interface SidecarBase extends SidecarPlace {
  logFormat?: LogFormat;
}

/** The command with the shared flags; the caller adds its own, then calls parseSidecarFlags. */
export function sidecarCommand(spec: SidecarCommand): Command {
  return new Command(spec.name)
    .version(VERSION, '-V, --version', 'print the version')
    .description(spec.description)
    .option('--port <port>', spec.port.help, portArg, spec.port.default)
    .option('--admin-port <port>', 'admin HTTP port (/healthz, /readyz, /metrics)', portArg, spec.adminPort)
    .option('--bind <host>', 'address both ports bind to (0.0.0.0 to serve other hosts or containers)', '127.0.0.1')
    .option(
      '--config <file>',
      `${spec.config.set} JSON written by \`sluice compile -o DIR\` (DIR/${spec.config.file}); watched for changes`,
    )
    .option('--xds <host:port>', `xDS server (\`sluice serve\`) to get ${spec.config.resources} from`)
    .option('--node-id <id>', 'xDS node id', spec.name);
}

/** Parses `argv` (usage errors throw, as exitOverride makes them) and returns every option with the shared part read. */
export function parseSidecarFlags<Own extends object>(
  program: Command,
  argv: string[],
): { flags: SidecarFlags & Own; base: SidecarBase } {
  program.addOption(logFormatOption()).exitOverride().parse(argv, { from: 'user' });
  const flags = program.opts<SidecarFlags & Own>();
  if (!!flags.config === !!flags.xds) program.error('give exactly one of --config FILE and --xds HOST:PORT');
  return {
    flags,
    base: {
      port: flags.port,
      adminPort: flags.adminPort,
      host: flags.bind,
      ...(flags.config ? { config: flags.config } : { xds: flags.xds }),
      nodeId: flags.nodeId,
      ...(flags.logFormat ? { logFormat: flags.logFormat } : {}),
    },
  };
}
