/**
 * What each resource's status should say, from a compile's diagnostics: the
 * pure half of the status writer (status-writer.ts does the I/O). The shape
 * is Gloo's (solo-kit's NamespacedStatuses): `status.statuses.<install
 * namespace>` holds this install's verdict, so another reporter's entry
 * (Gloo's under gloo-system, another install's) is left as it is.
 */
import { isError, type Diagnostic } from '../../compiler/diagnostics.js';
import type { ClusterObjects } from '../../compiler/pipeline.js';
import type { KubeObject } from './admission-review.js';
import { clusterLines } from './messages.js';
import { diagnosticsPerObject } from './per-object.js';

/** solo-kit's Status.State as Gloo writes it (proto3 JSON: the enum's name). Pending is never written: a resource is judged with the compile that read it. */
export type StatusState = 'Accepted' | 'Rejected' | 'Warning';

/** What Sluice writes under `status.statuses.<install namespace>`. */
export interface ResourceStatus {
  state: StatusState;
  /** The errors (Rejected) or warnings (Warning), one line each, as the CLI prints them without file and line; absent when Accepted (solo-kit leaves it empty). */
  reason?: string;
  reportedBy: string;
  /** The metadata.generation the verdict is about (Sluice's addition; Gloo's CRDs keep the field). */
  observedGeneration: number;
}

export const REPORTED_BY = 'sluice';

/** An object of a Sluice kind as the watch gives it. */
export interface StatusObject extends KubeObject {
  metadata: { name: string; namespace?: string; generation?: number; resourceVersion?: string; [key: string]: unknown };
  status?: unknown;
}

/** The verdict on one resource from the diagnostics that name it. */
export function statusOf(generation: number, diagnostics: readonly Diagnostic[]): ResourceStatus {
  const errors = diagnostics.filter(isError);
  const shown = errors.length > 0 ? errors : diagnostics;
  const state: StatusState = errors.length > 0 ? 'Rejected' : diagnostics.length > 0 ? 'Warning' : 'Accepted';
  const lines = clusterLines(shown);
  return {
    state,
    ...(lines.length > 0 ? { reason: lines.join('\n') } : {}),
    reportedBy: REPORTED_BY,
    observedGeneration: generation,
  };
}

/**
 * Every object's status after a compile (objects under the cluster source's
 * keys): Rejected with its errors, Warning with its warnings, else Accepted.
 * A diagnostic that names no object (a proxy no Gateway names, a check of
 * the whole output) belongs to no status; serve logs it and shows it on
 * /status.
 */
export function desiredStatuses(
  objects: ReadonlyMap<string, StatusObject>,
  diagnostics: readonly Diagnostic[],
): Map<string, ResourceStatus> {
  const { byObject } = diagnosticsPerObject(objects as unknown as ClusterObjects, diagnostics);
  return new Map(
    [...byObject].map(([key, found]) => [key, statusOf(objects.get(key)!.metadata.generation ?? 0, found)]),
  );
}

/** Whether the status an object holds under `namespace` already says `desired` (other fields of the entry, such as another writer's, do not count). */
export function statusHolds(objectStatus: unknown, namespace: string, desired: ResourceStatus): boolean {
  const entry = (objectStatus as { statuses?: Record<string, Record<string, unknown>> } | undefined)?.statuses?.[
    namespace
  ];
  if (!entry) return false;
  return (
    entry.state === desired.state &&
    (entry.reason ?? undefined) === desired.reason &&
    entry.reportedBy === desired.reportedBy &&
    Number(entry.observedGeneration) === desired.observedGeneration
  );
}

/** The object's status with this install's entry set to `desired`, every other entry and field kept. */
export function withStatus(objectStatus: unknown, namespace: string, desired: ResourceStatus): Record<string, unknown> {
  const status = (objectStatus && typeof objectStatus === 'object' ? objectStatus : {}) as Record<string, unknown>;
  const statuses = (status.statuses && typeof status.statuses === 'object' ? status.statuses : {}) as Record<
    string,
    unknown
  >;
  return { ...status, statuses: { ...statuses, [namespace]: { ...desired } } };
}
