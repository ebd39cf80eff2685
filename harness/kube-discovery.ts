/**
 * What the API server double serves besides objects: the built-in kinds and
 * the discovery documents client-node reads (KubernetesObjectApi resolves a
 * kind's plural and scope from /api/v1 and /apis/<group>/<version>).
 */
import { ApiError, type ResourceType } from './kube-store.js';

/** The built-in kinds every double serves; custom resources are added with addType (as installing their CRD). */
export const BUILT_IN_TYPES: readonly ResourceType[] = [
  {
    group: '',
    version: 'v1',
    plural: 'namespaces',
    kind: 'Namespace',
    namespaced: false,
    status: true,
    unconditionalUpdate: true,
  },
  {
    group: '',
    version: 'v1',
    plural: 'services',
    kind: 'Service',
    namespaced: true,
    status: true,
    unconditionalUpdate: true,
  },
  { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true, status: true, unconditionalUpdate: true },
  { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true, unconditionalUpdate: true },
  { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true, unconditionalUpdate: true },
  {
    group: 'discovery.k8s.io',
    version: 'v1',
    plural: 'endpointslices',
    kind: 'EndpointSlice',
    namespaced: true,
    unconditionalUpdate: true,
  },
  {
    group: 'coordination.k8s.io',
    version: 'v1',
    plural: 'leases',
    kind: 'Lease',
    namespaced: true,
    unconditionalUpdate: true,
  },
];

export function groupList(types: readonly ResourceType[]) {
  const groups = new Map<string, Set<string>>();
  for (const type of types) {
    if (type.group) groups.set(type.group, (groups.get(type.group) ?? new Set()).add(type.version));
  }
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...groups].map(([name, versions]) => {
      const list = [...versions].map((version) => ({ groupVersion: `${name}/${version}`, version }));
      return { name, versions: list, preferredVersion: list[0] };
    }),
  };
}

export function resourceList(types: readonly ResourceType[], group: string, version: string) {
  const served = types.filter((t) => t.group === group && t.version === version);
  if (served.length === 0) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
  const verbs = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources: served.flatMap((t) => [
      { name: t.plural, singularName: t.kind.toLowerCase(), namespaced: t.namespaced, kind: t.kind, verbs },
      ...(t.status
        ? [
            {
              name: `${t.plural}/status`,
              singularName: '',
              namespaced: t.namespaced,
              kind: t.kind,
              verbs: ['get', 'patch', 'update'],
            },
          ]
        : []),
    ]),
  };
}
