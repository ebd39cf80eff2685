/**
 * What `serve --kube` watches: every kind that has a CRD (compiler/kinds/),
 * under Sluice's API group and, where Gloo has it, Gloo's `*.solo.io` alias;
 * and the cluster's Services, EndpointSlices, Pods (labels, for selectors and
 * subsets) and Secrets, which the compiler reads as they are.
 */
import { KINDS } from '../../compiler/kinds/index.js';
import { crdKinds, pluralOf } from '../../compiler/kinds/crd.js';

export interface WatchedKind {
  apiVersion: string;
  /** '' for the core group. */
  group: string;
  version: string;
  kind: string;
  plural: string;
}

function watched(apiVersion: string, kind: string, plural: string): WatchedKind {
  const slash = apiVersion.indexOf('/');
  const group = slash === -1 ? '' : apiVersion.slice(0, slash);
  return { apiVersion, group, version: apiVersion.slice(slash + 1), kind, plural };
}

/** The cluster's own kinds the compiler reads. */
const BUILT_IN: readonly WatchedKind[] = [
  watched('v1', 'Service', 'services'),
  watched('discovery.k8s.io/v1', 'EndpointSlice', 'endpointslices'),
  watched('v1', 'Pod', 'pods'),
  watched('v1', 'Secret', 'secrets'),
];

export function watchedKinds(): WatchedKind[] {
  const custom = crdKinds(KINDS, 'sluice').flatMap((definition) => {
    const plural = pluralOf(definition.kind)!;
    return [
      watched(definition.apiVersion, definition.kind, plural),
      ...(definition.glooApiVersion ? [watched(definition.glooApiVersion, definition.kind, plural)] : []),
    ];
  });
  return [...custom, ...BUILT_IN];
}

/** The REST path of a kind's objects, in one namespace or in all. */
export function collectionPath(kind: WatchedKind, namespace?: string): string {
  const root = kind.group ? `/apis/${kind.group}/${kind.version}` : `/api/${kind.version}`;
  return namespace === undefined
    ? `${root}/${kind.plural}`
    : `${root}/namespaces/${encodeURIComponent(namespace)}/${kind.plural}`;
}

/** The key of an object in the provider's set: the same for every version of it. */
export function objectKey(apiVersion: string, kind: string, namespace: string | undefined, name: string): string {
  return `${apiVersion}|${kind}|${namespace ?? ''}/${name}`;
}
