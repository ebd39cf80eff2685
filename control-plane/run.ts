/** `sluice serve` assembled: control loop, ADS server and admin HTTP. */
import type { Logger } from 'pino';
import { listenOn } from '../runtime/binary.js';
import type { CompileOptions } from '../compiler/translate/output.js';
import { startAdmin } from './admin.js';
import { ControlPlane, type CompileOutcome } from './control.js';
import type { Admission } from './kube/admission.js';
import type { KubeSource, KubeSourceOptions } from './kube/source.js';
import type { StatusReporter } from './kube/status.js';
import type { StatusFlags, WebhookFlags } from './kube/status-and-admission.js';
import { collectWhenQuiet } from './memory.js';
import { XdsServer } from './server/server.js';

export interface ServeOptions {
  /** The resource files and directories; unread with `kube`. */
  paths: string[];
  /** Read the resources from a Kubernetes cluster instead of files (serve --kube). */
  kube?: Omit<KubeSourceOptions, 'logger'>;
  /** With `kube`: write each object's status while holding this Lease (serve --status-lease). */
  status?: StatusFlags;
  /** With `kube`: serve the admission webhook (serve --webhook-port). */
  webhook?: WebhookFlags;
  compileOptions: CompileOptions;
  host: string;
  xdsPort: number;
  adminPort: number;
  logger: Logger;
  debounceMs?: number;
}

export interface Serving {
  control: ControlPlane;
  /** With `kube`: the cluster's objects and what each compile said of them (status, admission). */
  kube?: KubeSource;
  status?: StatusReporter;
  admission?: Admission;
  xds: XdsServer;
  xdsPort: number;
  adminPort: number;
  firstCompile: CompileOutcome;
  close(): Promise<void>;
}

export async function startServe(options: ServeOptions): Promise<Serving> {
  const { logger } = options;
  // Loaded for --kube only: the Kubernetes client is about a thousand modules (a second of CPU) that serving files never needs.
  const cluster = options.kube
    ? await Promise.all([import('./kube/source.js'), import('./kube/status-and-admission.js')])
    : undefined;
  const kube = options.kube && cluster ? new cluster[0].KubeSource({ ...options.kube, logger }) : undefined;
  if (kube) logger.info({ server: kube.server, namespaces: options.kube?.namespaces ?? 'all' }, 'kube: watching');
  const control = new ControlPlane({
    paths: options.paths,
    source: kube,
    compileOptions: options.compileOptions,
    logger,
    debounceMs: options.debounceMs,
  });
  const namespace = options.compileOptions.controlPlaneNamespace;
  // Before the first compile, whose verdicts it reports too.
  const status =
    kube && cluster && options.status
      ? cluster[1].startStatusReporting(kube, namespace, options.status, logger)
      : undefined;
  const xds = new XdsServer(control.cache, logger);
  const collector = collectWhenQuiet(control, xds);
  xds.on('connect', (s) => logger.info({ stream: s.id, protocol: s.protocol }, 'xds stream opened'));
  xds.on('disconnect', (s) => logger.info({ stream: s.id, node: s.node?.id }, 'xds stream closed'));
  xds.on('ack', (e) => logger.debug(e, 'xds ACK'));
  xds.on('node', (s) => {
    const proxies = control.cache.proxies;
    // Envoys only (user agent "envoy/…"): the sidecars name no proxy and want only their own types.
    if (proxies.size > 0 && s.node?.userAgent.startsWith('envoy') && !proxies.has(s.node.proxy))
      logger.warn(
        { node: s.node.id, proxy: s.node.proxy, proxies: [...proxies.keys()] },
        'an Envoy names a proxy no Gateway lists (node metadata role): it is served no listeners',
      );
    const expected = s.node?.listenerPort;
    if (expected !== undefined && expected !== options.compileOptions.listenerPort)
      logger.warn(
        { node: s.node?.id, expected, serving: options.compileOptions.listenerPort },
        'node expects another listener port than the one served (--listener-port)',
      );
  });
  // A port that cannot be opened is an error naming its flag (runtime/binary.ts).
  const xdsPort = await listenOn('--xds-port', options.host, options.xdsPort, () =>
    xds.listen(options.host, options.xdsPort),
  );
  const admin = await listenOn('--admin-port', options.host, options.adminPort, () =>
    startAdmin(control, xds, options.host, options.adminPort, status),
  );
  const firstCompile = await control.start();
  if (!firstCompile.ok) logger.warn('first compile failed: serving nothing, /readyz is 503 until the inputs compile');
  // After every kind's first list: a check before it would not see what the cluster holds.
  const webhook = options.webhook;
  const admission =
    kube && cluster && webhook
      ? await listenOn('--webhook-port', options.host, webhook.port, () =>
          cluster[1].startClusterAdmission(kube, options.host, options.compileOptions, webhook, logger),
        )
      : undefined;
  logger.info({ xds: `${options.host}:${xdsPort}`, admin: `${options.host}:${admin.port}` }, 'sluice serve listening');
  return {
    control,
    kube,
    status,
    admission,
    xds,
    xdsPort,
    adminPort: admin.port,
    firstCompile,
    async close() {
      // The Lease first, released so another replica writes status without waiting for it to run out.
      await status?.stop();
      await admission?.close();
      control.close();
      collector.close();
      await xds.close();
      await admin.app.close();
    },
  };
}
