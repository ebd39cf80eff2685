/**
 * What `serve --kube` runs beside the control loop: status reporting
 * (--status-lease) after every compile of the cluster's objects, and the
 * admission webhook (--webhook-port), started once every kind has been
 * listed so that its checks see what the cluster holds.
 */
import type { Logger } from 'pino';
import { pluralOf } from '../../compiler/kinds/crd.js';
import type { ClusterObject, ClusterObjects } from '../../compiler/pipeline.js';
import type { CompileOptions } from '../../compiler/translate/output.js';
import type { KubeObject } from './admission-review.js';
import { startAdmission, type Admission, type AdmissionOptions } from './admission.js';
import type { KubeSource } from './source.js';
import { StatusReporter, type StatusReportingOptions } from './status.js';
import type { StatusObject } from './status-desired.js';

export interface StatusFlags extends Pick<StatusReportingOptions, 'lease' | 'identity' | 'timing' | 'rate'> {}
export interface WebhookFlags extends Pick<AdmissionOptions, 'port' | 'selfSigned' | 'certDir' | 'budgetMs'> {}

const isStatusObject = (o: ClusterObject | undefined): boolean =>
  typeof o?.kind === 'string' && pluralOf(o.kind) !== undefined;

/** The objects that get a status: those of Sluice's kinds (either API group), not the Services, Pods... they read. */
export const statusObjects = (objects: ClusterObjects): Map<string, StatusObject> =>
  new Map([...objects].filter(([, o]) => isStatusObject(o)) as [string, StatusObject][]);

/** Status reporting, started now: it acts on the 'compiled' events of `kube`. */
export function startStatusReporting(
  kube: KubeSource,
  namespace: string,
  flags: StatusFlags,
  logger: Logger,
): StatusReporter {
  const reporter = new StatusReporter({ ...flags, kubeConfig: kube.kubeConfig, namespace, logger });
  let objects: Map<string, StatusObject> | undefined;
  kube.on('compiled', (compile) => {
    // Made again only when an object of Sluice's kinds came, changed or went: not for each EndpointSlice or Pod change.
    if (!objects || [...compile.changed].some((key) => objects!.has(key) || isStatusObject(compile.objects.get(key))))
      objects = statusObjects(compile.objects);
    reporter.report(objects, compile.diagnostics);
  });
  reporter.start();
  return reporter;
}

/** The webhook, to start once `kube` has listed every kind. */
export function startClusterAdmission(
  kube: KubeSource,
  host: string,
  compileOptions: CompileOptions,
  flags: WebhookFlags,
  logger: Logger,
): Promise<Admission> {
  return startAdmission({
    ...flags,
    host,
    namespace: compileOptions.controlPlaneNamespace,
    kubeConfig: kube.kubeConfig,
    cluster: () => [...kube.current().values()] as KubeObject[],
    compileOptions,
    logger,
  });
}
