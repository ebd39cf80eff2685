/** `sluice serve`: compile, serve over ADS, watch the inputs and push what changes. */
import type { Command } from 'commander';
import {
  logFormatOption,
  logGrpcTo,
  shutdownOnSignals,
  startFailed,
  stdoutLog,
  type LogFormat,
} from '../../runtime/binary.js';
import { MESH_DEFAULTS } from '../translate/mesh.js';
import { startServe } from '../../control-plane/run.js';
import { addCompileOptions, compileOptionsFrom, parsePort, type CompileFlags } from './options.js';

interface ServeFlags extends CompileFlags {
  mesh?: boolean;
  vhds?: boolean;
  routeConfigName: string;
  namePrefix: string;
  xdsPort: number;
  adminPort: number;
  bind: string;
  logLevel: string;
  logFormat?: LogFormat;
}

const parsePortOrZero = (v: string) => (v === '0' ? 0 : parsePort(v));

export function register(program: Command): void {
  addCompileOptions(
    program
      .command('serve')
      .description(
        'Compile the resources, serve them to Envoy and the sidecars over ADS (SotW and delta; RDS, CDS, EDS, SDS and ECDS also on their own), and push a new version whenever the files change. A change with errors is not pushed: the last good configuration stays and the errors show in the log and on /status.',
      ),
  )
    .option('--xds-port <port>', 'gRPC port of the aggregated discovery service', parsePortOrZero, 18000)
    .option('--admin-port <port>', 'HTTP port of /healthz, /readyz, /metrics, /status', parsePortOrZero, 9901)
    .option('--bind <host>', 'address both ports bind to (0.0.0.0 to serve other hosts or containers)', '127.0.0.1')
    .option('--log-level <level>', 'pino log level', 'info')
    .addOption(logFormatOption())
    .option(
      '--mesh',
      'mesh mode: serve routes (RDS), clusters (CDS/EDS) and HTTP filters (ECDS) into an Envoy whose listeners you own, no listener (see sluice bootstrap --mesh)',
    )
    .option(
      '--route-config-name <name>',
      'mesh mode: name of the one RouteConfiguration',
      MESH_DEFAULTS.routeConfigName,
    )
    .option(
      '--name-prefix <prefix>',
      'mesh mode: put before every cluster, Secret and HTTP filter name',
      MESH_DEFAULTS.namePrefix,
    )
    .option(
      '--vhds',
      'serve each virtual host on its own (VHDS), so an edit sends Envoy one host instead of the whole route table; Envoy must use delta xDS (sluice bootstrap --delta)',
    )
    .action(async (flags: ServeFlags) => {
      if (flags.vhds && flags.mesh) {
        process.stderr.write(
          'error: --vhds and --mesh cannot be used together: mesh mode serves the one route configuration your connection manager names over RDS\n',
        );
        process.exitCode = 2;
        return;
      }
      const logger = stdoutLog({ name: 'sluice-serve', level: flags.logLevel }, flags.logFormat);
      logGrpcTo(logger);
      let serving: Awaited<ReturnType<typeof startServe>>;
      try {
        serving = await startServe({
          paths: flags.filename,
          compileOptions: {
            ...compileOptionsFrom(flags),
            ...(flags.mesh ? { mesh: { routeConfigName: flags.routeConfigName, namePrefix: flags.namePrefix } } : {}),
            ...(flags.vhds ? { vhds: true } : {}),
          },
          host: flags.bind,
          xdsPort: flags.xdsPort,
          adminPort: flags.adminPort,
          logger,
        });
      } catch (err) {
        // e.g. a port already in use: one line naming the flag, exit 1
        startFailed('sluice serve', err);
      }
      shutdownOnSignals(logger, 'closing xDS streams', () => serving.close());
    });
}
