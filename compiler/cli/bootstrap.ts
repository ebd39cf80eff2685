/** `sluice bootstrap`: the Envoy bootstrap that fetches everything from `sluice serve` over ADS. */
import { Option, type Command } from 'commander';
import { formatDiagnostic } from '../diagnostics.js';
import { serialize, type OutputFormat } from '../emit/write.js';
import { DEFAULT_OPTIONS } from '../translate/output.js';
import { verifyBootstrap } from '../verify/verify.js';
import { MESH_DEFAULTS } from '../translate/mesh.js';
import { adsBootstrap, meshExampleBootstrap, meshPieces } from '../../control-plane/bootstrap.js';
import { parseHostPort, parsePort, parseResourceName as parseProxyName } from './options.js';

interface BootstrapFlags {
  xdsAddress: { host: string; port: number };
  nodeId?: string;
  mesh?: boolean;
  routeConfigName: string;
  namePrefix: string;
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
    .description(
      'Print an Envoy bootstrap that gets listeners and clusters (and through them routes and endpoints) from `sluice serve` over ADS.',
    )
    .requiredOption(
      '--xds-address <host:port>',
      'address of `sluice serve --xds-port` as Envoy reaches it',
      parseHostPort,
    )
    .option(
      '--node-id <id>',
      'node id of this Envoy (unique per Envoy: NACKs are remembered per node); required without --mesh',
    )
    .option('--node-cluster <name>', 'service cluster this Envoy reports', 'sluice-gateway')
    .option(
      '--proxy <name>',
      'the proxy of a fleet this Envoy is (a name in Gateway proxyNames), sent as node metadata `role`; serve sends it only those Gateways (default: gateway-proxy)',
      parseProxyName,
    )
    .option(
      '--listener-port <port>',
      'listener port this Envoy expects (sent as node metadata; serve warns when its --listener-port differs)',
      parsePort,
    )
    .option(
      '--envoy-admin-port <port>',
      "Envoy's admin port (bound to 127.0.0.1)",
      parsePort,
      DEFAULT_OPTIONS.adminPort,
    )
    .option('--delta', 'use incremental xDS (DELTA_GRPC)', false)
    .option(
      '--mesh',
      'print instead the pieces to paste into an Envoy you already run, for `sluice serve --mesh`: the cluster that reaches serve, the CDS source, the RDS block and the HTTP filters over ECDS, each commented',
    )
    .option('--route-config-name <name>', 'with --mesh: as given to serve --mesh', MESH_DEFAULTS.routeConfigName)
    .option('--name-prefix <prefix>', 'with --mesh: as given to serve --mesh', MESH_DEFAULTS.namePrefix)
    .addOption(new Option('--format <format>', 'output format').choices(['yaml', 'json']).default('yaml'))
    .action((flags: BootstrapFlags) => {
      if (flags.mesh) {
        process.exitCode = printMesh(flags);
        return;
      }
      if (!flags.nodeId) {
        process.stderr.write(
          "error: required option '--node-id <id>' not specified (it may be left out with --mesh only)\n",
        );
        process.exitCode = 2;
        return;
      }
      const bootstrap = adsBootstrap({ ...flags, nodeId: flags.nodeId, adminPort: flags.envoyAdminPort });
      const errors = verifyBootstrap(bootstrap);
      if (errors.length > 0) {
        for (const d of errors) process.stderr.write(`${formatDiagnostic(d)}\n`);
        process.exitCode = 1;
        return;
      }
      process.stdout.write(serialize(bootstrap, flags.format));
    });
}

/** YAML of `value` indented by `indent` spaces, for pasting under a key. */
function block(value: unknown, indent: number): string {
  return serialize(value, 'yaml')
    .trimEnd()
    .split('\n')
    .map((line) => `${' '.repeat(indent)}${line}`)
    .join('\n');
}

/** The mesh pieces, checked together in an example bootstrap first, printed as commented YAML. */
function printMesh(flags: BootstrapFlags): number {
  const mesh = { routeConfigName: flags.routeConfigName, namePrefix: flags.namePrefix };
  const pieces = meshPieces(flags.xdsAddress, mesh);
  const errors = verifyBootstrap(meshExampleBootstrap(pieces, 8080));
  if (errors.length > 0) {
    for (const d of errors) process.stderr.write(`${formatDiagnostic(d)}\n`);
    return 1;
  }
  const serve = `sluice serve --mesh --route-config-name ${mesh.routeConfigName} --name-prefix ${mesh.namePrefix}`;
  process.stdout.write(`# Sluice's part of an Envoy you already run, served by: ${serve}
# Paste each piece where its comment says; your listeners and clusters stay as they are.

# 1. Under static_resources.clusters: the cluster that reaches sluice serve.
static_resources:
  clusters:
${block([pieces.cluster], 2)}

# 2. Sluice's clusters (names start with "${mesh.namePrefix}"). Envoy has one CDS source:
#    if your bootstrap already has dynamic_resources.cds_config, Sluice's clusters cannot be added.
dynamic_resources:
  cds_config:
${block(pieces.cdsConfig, 4)}

# 3. In the http_connection_manager of the listener that serves Sluice's hosts,
#    in place of its route_config: the routes of every Sluice VirtualService.
rds:
${block(pieces.rds, 2)}

# 4. In the same http_connection_manager, before your router: every Sluice HTTP
#    filter, in this order. Each does nothing until a VirtualService uses it, so
#    this list never changes. Until its config arrives a filter is warming and the
#    listener waits: a request is never let through unchecked.
http_filters:
${block(pieces.httpFilters, 0)}
# - name: envoy.filters.http.router ... (yours, last)
`);
  return 0;
}
