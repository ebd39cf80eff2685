/**
 * The admission webhook's verdict on one AdmissionReview (admission.k8s.io/v1),
 * without I/O: the set the cluster would hold after the request is compiled
 * (by the function given), and the request is refused when that compile has
 * errors in the object itself, or errors elsewhere that the cluster's
 * current set does not have (an edit or a deletion that breaks another
 * resource's reference). The message is the CLI's, naming resource and
 * field; the object's warnings come back as admission warnings. A dry run
 * (`kubectl apply --dry-run=server`) gets the same answer: the check has no
 * side effects.
 */
import { isError, type Diagnostic } from '../../compiler/diagnostics.js';
import { pluralOf } from '../../compiler/kinds/crd.js';
import { objectKey } from './kinds.js';
import { clusterLines, resourceName } from './messages.js';

/** A Kubernetes object as the webhook and the watch see it. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

export interface AdmissionRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  name?: string;
  namespace?: string;
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  object?: KubeObject | null;
  oldObject?: KubeObject | null;
  dryRun?: boolean;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { code: number; reason?: string; message: string };
  warnings?: string[];
}

export interface AdmissionReview {
  apiVersion: 'admission.k8s.io/v1';
  kind: 'AdmissionReview';
  response: AdmissionResponse;
}

/** The errors and warnings of compiling a set of objects. */
export type CheckObjects = (objects: readonly KubeObject[]) => Promise<readonly Diagnostic[]>;

/** The API server may cut a warning past 256 characters and drops those past 4,096 characters in all: 16 whole ones reach kubectl. */
const WARNING_CHARS = 256;
const WARNINGS = 16;

export class BadReview extends Error {}

/** The request of a posted AdmissionReview v1; BadReview when it is not one. */
export function admissionRequest(body: unknown): AdmissionRequest {
  const review = body as { apiVersion?: unknown; kind?: unknown; request?: Partial<AdmissionRequest> } | null;
  if (review?.apiVersion !== 'admission.k8s.io/v1' || review.kind !== 'AdmissionReview')
    throw new BadReview('expected an AdmissionReview of admission.k8s.io/v1 (admissionReviewVersions: [v1])');
  const request = review.request;
  if (!request || typeof request.uid !== 'string' || typeof request.operation !== 'string' || !request.kind)
    throw new BadReview('the AdmissionReview has no request with uid, kind and operation');
  return request as AdmissionRequest;
}

export const reviewOf = (response: AdmissionResponse): AdmissionReview => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  response,
});

/**
 * The object under review as the compiler is to read it: the namespace and
 * name from the request where the object leaves them out (generateName, a
 * namespace from the URL), and no resourceVersion: an update carries the
 * stored version's, and the compiler would take the new content for the
 * stored object it has already validated.
 */
function named(object: KubeObject, request: AdmissionRequest): KubeObject {
  const { resourceVersion: _stored, ...metadata } = object.metadata;
  return {
    ...object,
    metadata: {
      ...metadata,
      name: object.metadata.name ?? request.name,
      namespace: object.metadata.namespace ?? request.namespace ?? 'default',
    },
  };
}

/** The object's identity: its apiVersion too, since a Sluice-group and a Gloo-group object may share kind, namespace and name. */
const identity = (o: KubeObject) =>
  objectKey(o.apiVersion, o.kind, o.metadata.namespace ?? 'default', o.metadata.name ?? '');

const lineSet = (diagnostics: readonly Diagnostic[]) => new Set(clusterLines(diagnostics.filter(isError)));

/**
 * The verdict on `request`, given what the cluster holds now (`cluster`) and
 * a compile. Kinds Sluice does not read are allowed untouched.
 */
export async function review(
  request: AdmissionRequest,
  cluster: readonly KubeObject[],
  check: CheckObjects,
): Promise<AdmissionResponse> {
  const allowed: AdmissionResponse = { uid: request.uid, allowed: true };
  if (!pluralOf(request.kind.kind) || request.operation === 'CONNECT') return allowed;
  const target = request.operation === 'DELETE' ? request.oldObject : request.object;
  if (!target) return allowed;
  const object = named(target, request);
  const key = identity(object);
  const rest = cluster.filter((o) => identity(o) !== key);
  const after = request.operation === 'DELETE' ? rest : [...rest, object];
  const diagnostics = await check(after);
  const own = resourceName(object.kind, object.metadata.namespace!, object.metadata.name!);
  const errors = diagnostics.filter(isError);
  const ownErrors = errors.filter((d) => d.resource === own);
  // Errors elsewhere count only when the current set is free of them: a cluster already broken does not block an unrelated edit.
  const before = errors.length > ownErrors.length ? lineSet(await check(cluster)) : new Set<string>();
  const newErrors = [...ownErrors, ...errors.filter((d) => d.resource !== own && !before.has(clusterLines([d])[0]!))];
  if (newErrors.length > 0) {
    const what = request.operation === 'DELETE' ? `deleting ${own}` : own;
    return {
      uid: request.uid,
      allowed: false,
      status: {
        code: 422,
        reason: 'Invalid',
        message: [`${what} does not compile with the cluster's resources:`, ...clusterLines(newErrors)].join('\n'),
      },
    };
  }
  const warnings = clusterLines(diagnostics.filter((d) => !isError(d) && d.resource === own))
    .slice(0, WARNINGS)
    .map((w) => (w.length > WARNING_CHARS ? `${w.slice(0, WARNING_CHARS - 1)}…` : w));
  return warnings.length > 0 ? { ...allowed, warnings } : allowed;
}
