/** What every kind shares: references to other resources, Kubernetes metadata and the envelope. */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { note } from './gloo.js';
import { anyValue, constant, namespaceName, object, resourceName, stringMap } from './schema.js';

/** `{name, namespace}`; namespace defaults to the referring resource's own. */
export const resourceRef = object(
  {
    name: resourceName,
    namespace: note(namespaceName, 'defaults to the namespace of the resource that holds the reference'),
  },
  ['name'],
);
export type Ref = Static<typeof resourceRef>;

/** A map kubectl may write as an empty `labels:` (null). */
const nullableStringMap = Type.Unsafe<Record<string, string> | null>({ ...stringMap, type: ['object', 'null'] });

/**
 * Standard Kubernetes metadata: what Sluice reads is checked; what the API
 * server adds (as `kubectl get -o yaml` writes it) is accepted and ignored.
 */
export const metadata = object(
  {
    name: resourceName,
    namespace: namespaceName,
    labels: nullableStringMap,
    annotations: nullableStringMap,
    uid: anyValue,
    resourceVersion: anyValue,
    generation: anyValue,
    generateName: anyValue,
    creationTimestamp: anyValue,
    deletionTimestamp: anyValue,
    deletionGracePeriodSeconds: anyValue,
    selfLink: anyValue,
    ownerReferences: anyValue,
    finalizers: anyValue,
    managedFields: anyValue,
  },
  ['name'],
);

/** The envelope every kind with a spec shares; `status` is accepted and ignored. */
function resource(apiVersion: string, kind: string, spec: TSchema) {
  return object({ apiVersion: constant(apiVersion), kind: constant(kind), metadata, spec, status: anyValue }, [
    'apiVersion',
    'kind',
    'metadata',
    'spec',
  ]);
}

/** A kind Sluice reads: its apiVersion, the schema of a whole document, and the schema of its spec. */
export interface KindDefinition {
  apiVersion: string;
  kind: string;
  /** The whole document: envelope and spec. */
  document: TSchema;
  /** Gloo's apiVersion of the kind, accepted as an alias of Sluice's; its spec's fields are on docs/gloo-compatibility.md. */
  glooApiVersion?: string;
  /** The spec, for the Gloo walk (unset for kinds without one, such as Secret). */
  spec?: TSchema;
}

/** A kind defined by its spec; with `glooApiVersion`, one of Gloo's, read under either group. */
export function kind(apiVersion: string, name: string, spec: TSchema, glooApiVersion?: string): KindDefinition {
  return {
    apiVersion,
    kind: name,
    document: resource(apiVersion, name, spec),
    spec,
    ...(glooApiVersion ? { glooApiVersion } : {}),
  };
}

/** A Gloo kind Sluice refuses as a whole, with the reason: never "unknown kind". */
export interface RefusedKind {
  kind: string;
  apiVersion: string;
  glooApiVersion: string;
  refused: { reason: string; instead?: string };
}
