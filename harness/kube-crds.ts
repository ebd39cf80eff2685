/** The custom resource kinds `serve --kube` watches, as the API server double serves them once their CRDs are installed. */
import { watchedKinds } from '../control-plane/kube/kinds.js';
import { BUILT_IN_TYPES, type ResourceType } from './kube-apiserver.js';

/** The CRDs of Sluice's and Gloo's groups (with the status subresource); `only` keeps the groups it matches. */
export function crdTypesFor(only?: RegExp): ResourceType[] {
  return watchedKinds()
    .filter((k) => k.group !== '' && !BUILT_IN_TYPES.some((b) => b.group === k.group && b.plural === k.plural))
    .filter((k) => !only || only.test(k.group))
    .map((k) => ({
      group: k.group,
      version: k.version,
      plural: k.plural,
      kind: k.kind,
      namespaced: true,
      status: true,
    }));
}
