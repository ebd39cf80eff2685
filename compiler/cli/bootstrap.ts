/** `sluice bootstrap`: the Envoy bootstrap that fetches everything from `sluice serve` over ADS. */
import { Option, type Command } from 'commander';
import { formatDiagnostic } from '../diagnostics.js';
import { serialize, type OutputFormat } from '../emit/write.js';
import { DEFAULT_OPTIONS } from '../translate/output.js';
import { verifyBootstrap } from '../verify/verify.js';
import { adsBootstrap } from '../xds/bootstrap.js';
import { parseHostPort, parsePort, parseResourceName as parseProxyName } from './options.js';

interface BootstrapFlags {
  xdsAddress: { host: string; port: number };
  nodeId: string;
  nodeCluster: string;
  listenerPort?: number;
  proxy?: string;
  envoyAdminPort: number;
  delta: boolean;
  format: OutputFormat;
}

export function register(program: Command): void {
  program
    .command('bootstrap')
    .description('Print an Envoy bootstrap that gets listeners and clusters (and through them routes and endpoints) from `sluice serve` over ADS.')
    .requiredOption('--xds-address <host:port>', 'address of `sluice serve --xds-port` as Envoy reaches it', parseHostPort)
    .requiredOption('--node-id <id>', 'node id of this Envoy (unique per Envoy: NACKs are remembered per node)')
    .option('--node-cluster <name>', 'service cluster this Envoy reports', 'sluice-gateway')
    .option('--proxy <name>', 'the proxy of a fleet this Envoy is (a name in Gateway proxyNames), sent as node metadata `role`; serve sends it only those Gateways (default: gateway-proxy)', parseProxyName)
    .option('--listener-port <port>', 'listener port this Envoy expects (sent as node metadata; serve warns when its --listener-port differs)', parsePort)
    .option('--envoy-admin-port <port>', "Envoy's admin port (bound to 127.0.0.1)", parsePort, DEFAULT_OPTIONS.adminPort)
    .option('--delta', 'use incremental xDS (DELTA_GRPC)', false)
    .addOption(new Option('--format <format>', 'output format').choices(['yaml', 'json']).default('yaml'))
    .action((flags: BootstrapFlags) => {
      const bootstrap = adsBootstrap({ ...flags, adminPort: flags.envoyAdminPort });
      const errors = verifyBootstrap(bootstrap);
      if (errors.length > 0) {
        for (const d of errors) process.stderr.write(`${formatDiagnostic(d)}\n`);
        process.exitCode = 1;
        return;
      }
      process.stdout.write(serialize(bootstrap, flags.format));
    });
}
