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
import {
  addCompileOptions,
  compileOptionsFrom,
  parseNamespace,
  parsePort,
  parseResourceName,
  type CompileFlags,
} from './options.js';
import { addStatusOptions, statusFlagsProblem, statusTiming, type StatusTimingFlags } from './status-flags.js';

interface ServeFlags extends CompileFlags, StatusTimingFlags {
  kube?: boolean;
  kubeconfig?: string;
  namespaces?: string[];
  statusLease?: string;
  webhookPort?: number;
  webhookSelfSigned?: string;
  webhookCertDir?: string;
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

/** `a,b` -> its namespaces, each checked as a namespace name. */
function parseNamespaces(value: string): string[] {
  return value
    .split(',')
    .map((ns) => ns.trim())
    .filter((ns) => ns !== '')
    .map((ns) => parseNamespace(ns));
}

export function register(program: Command): void {
  addStatusOptions(
    addCompileOptions(
      program
        .command('serve')
        .description(
          'Compile the resources, serve them to Envoy and the sidecars over ADS (SotW and delta; RDS, CDS, EDS, SDS and ECDS also on their own), and push a new version whenever the files change (-f) or the cluster does (--kube). A change with errors is not pushed: the last good configuration stays and the errors show in the log and on /status.',
        ),
      { filesRequired: false },
    )
      .option(
        '--kube',
        "read the resources from the Kubernetes API server instead of files: Sluice's kinds in both API groups, Services, EndpointSlices, Pods and Secrets, listed and watched (in-cluster config in a pod, else --kubeconfig or KUBECONFIG); --namespace is then the install namespace (default $POD_NAMESPACE, else sluice-system)",
      )
      .option(
        '--kubeconfig <path>',
        'with --kube: the kubeconfig file (default: in-cluster config, else KUBECONFIG or ~/.kube/config)',
      )
      .option('--namespaces <a,b>', 'with --kube: watch these namespaces only (default: all)', parseNamespaces)
      .option(
        '--status-lease <name>',
        "with --kube: write each resource's verdict into its status (status.statuses.<--namespace>) while this replica holds the coordination.k8s.io Lease of that name in --namespace (holder: $POD_NAME, else the host name); without it, no status is written",
      ),
  )
    .option(
      '--webhook-port <port>',
      'with --kube: serve the validating admission webhook (HTTPS, POST /validate) on this port',
      parsePortOrZero,
    )
    .option(
      '--webhook-self-signed <name>',
      "the webhook's certificate: made at start for the Service <name>.<--namespace>.svc, its CA added to the caBundle of the ValidatingWebhookConfiguration <name>",
      parseResourceName,
    )
    .option(
      '--webhook-cert-dir <dir>',
      "the webhook's certificate: tls.crt and tls.key in this directory (a mounted cert-manager Secret), read again when they change",
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
    .action(async (flags: ServeFlags, command: Command) => {
      const fail = (message: string) => {
        process.stderr.write(`error: ${message}\n`);
        process.exitCode = 2;
      };
      if (flags.kube && flags.filename.length > 0)
        return fail('-f and --kube cannot be used together: serve reads either files or a cluster');
      if (!flags.kube && flags.filename.length === 0)
        return fail("required option '-f, --filename <path>' not specified (or --kube to read a cluster)");
      const kubeOnly = [
        'kubeconfig',
        'namespaces',
        'statusLease',
        'webhookPort',
        'webhookSelfSigned',
        'webhookCertDir',
      ] as const;
      if (!flags.kube && kubeOnly.some((flag) => flags[flag] !== undefined))
        return fail('--kubeconfig and --namespaces go with --kube, as do --status-lease and the --webhook-* options');
      const statusProblem = statusFlagsProblem(flags, command);
      if (statusProblem) return fail(statusProblem);
      const certificates = [flags.webhookSelfSigned, flags.webhookCertDir].filter((c) => c !== undefined).length;
      if (flags.webhookPort !== undefined && certificates !== 1)
        return fail(
          '--webhook-port needs the certificate from one of --webhook-self-signed <name> or --webhook-cert-dir <dir>',
        );
      if (flags.webhookPort === undefined && certificates > 0)
        return fail('--webhook-self-signed and --webhook-cert-dir go with --webhook-port');
      // The install namespace: where serve runs, unless given.
      if (flags.kube && command.getOptionValueSource('namespace') === 'default')
        flags.namespace = process.env.POD_NAMESPACE || flags.namespace;
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
          ...(flags.kube ? { kube: { kubeconfig: flags.kubeconfig, namespaces: flags.namespaces } } : {}),
          ...(flags.statusLease ? { status: { lease: flags.statusLease, ...statusTiming(flags) } } : {}),
          ...(flags.webhookPort !== undefined
            ? {
                webhook: {
                  port: flags.webhookPort,
                  selfSigned: flags.webhookSelfSigned,
                  certDir: flags.webhookCertDir,
                },
              }
            : {}),
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
