/**
 * An Upstream's `kube.selector` and `kube.subsetSpec` choose among the
 * Service's pods. Where Sluice knows the Service's endpoints (see
 * ./upstreams.ts), they do, as in Gloo (./endpoints.ts). Where it does not,
 * Envoy reaches the whole Service by its DNS name: a selector is then
 * accepted only when it is the Service's own, so it selects what the cluster
 * will reach; anything else (Gloo's canary pattern, one Upstream per version
 * label) would be silently widened, and is an error, as subsets are.
 */
import { fieldError, quote, type Diagnostic } from '../diagnostics.js';
import type { ServiceSpec } from '../kinds/kubernetes.js';
import type { UpstreamSpec } from '../kinds/upstream.js';
import type { NamespacedName } from '../ir/model.js';
import { showRef, type ResourceIndex } from './index.js';

const WHY = "without the Service's EndpointSlices among the inputs, Sluice routes to the whole Service by its DNS name";
const KNOWN = "add the Service's EndpointSlices and Pods (kubectl get -o yaml) to the inputs";

/** `reachesPods`: whether the Service's cluster reaches its pods (EDS); `spec` is the Service's, when it is among the inputs. */
export function selectorProblems(
  index: ResourceIndex,
  reachesPods: (service: NamespacedName, spec: ServiceSpec | undefined) => boolean,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const upstream of index.all('Upstream')) {
    const kube = (upstream.spec as UpstreamSpec).kube;
    if (!kube) continue;
    const ref = { name: kube.serviceName, namespace: kube.serviceNamespace ?? upstream.namespace };
    const service = index.get('Service', ref);
    const spec = service?.spec as ServiceSpec | undefined;
    if (reachesPods(ref, spec)) continue;
    if (spec?.type === 'ExternalName') {
      for (const field of ['selector', 'subsetSpec'] as const) {
        if (kube[field])
          out.push(
            fieldError(
              'resolve',
              upstream.origin,
              ['spec', 'kube', field],
              `Service ${showRef(ref)} is an ExternalName Service: Envoy reaches its external name, which has no pods to choose among`,
              `remove kube.${field}, or point the Upstream at a Service with pods`,
            ),
          );
      }
      continue;
    }
    if (kube.subsetSpec) {
      out.push(
        fieldError(
          'resolve',
          upstream.origin,
          ['spec', 'kube', 'subsetSpec'],
          `subsets choose among the pods of Service ${showRef(ref)}, whose endpoints Sluice does not know: Envoy would reach it by its DNS name`,
          `${KNOWN}; or give each subset its own Service`,
        ),
      );
    }
    if (!kube.selector) continue;
    const path = ['spec', 'kube', 'selector'];
    if (!service) {
      out.push(
        fieldError(
          'resolve',
          upstream.origin,
          path,
          `kube.selector cannot be checked: Service ${showRef(ref)} is not among the inputs (${WHY}, so the selector must be the Service's own)`,
          `add the Service to the input (the selector must equal its spec.selector), or remove kube.selector`,
        ),
      );
      continue;
    }
    const own = (service.spec as ServiceSpec).selector ?? {};
    if (!sameLabels(kube.selector, own)) {
      out.push(
        fieldError(
          'resolve',
          upstream.origin,
          path,
          `kube.selector ${showLabels(kube.selector)} differs from Service ${showRef(ref)}'s selector ${showLabels(own)}: ${WHY}, so this Upstream would reach every pod of the Service`,
          `${KNOWN}; or give each subset (e.g. each version) its own Service and point an Upstream at each, or remove kube.selector`,
        ),
      );
    }
  }
  return out;
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}

/** `"app=users,version=v2"`, quoted and cut like every user value in a message. */
function showLabels(labels: Record<string, string>): string {
  return quote(
    Object.entries(labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(','),
  );
}
