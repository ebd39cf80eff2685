/**
 * An Upstream's `kube.selector`: Gloo picks the pods it names, Sluice routes
 * to the Service's DNS name (every pod behind it) and discovers no pod
 * endpoints. A selector is accepted only when it is the Service's own, so it
 * selects what the cluster will reach; anything else (Gloo's canary pattern,
 * one Upstream per version label) would be silently widened, and is an error.
 */
import { fieldError, quote, type Diagnostic } from '../diagnostics.js';
import type { ServiceSpec } from '../kinds/kubernetes.js';
import type { UpstreamSpec } from '../kinds/upstream.js';
import { showRef, type ResourceIndex } from './index.js';

const WHY = 'Sluice routes to the whole Service by its DNS name and does not discover pod endpoints';

export function selectorProblems(index: ResourceIndex): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const upstream of index.all('Upstream')) {
    const kube = (upstream.spec as UpstreamSpec).kube;
    if (!kube?.selector) continue;
    const path = ['spec', 'kube', 'selector'];
    const ref = { name: kube.serviceName, namespace: kube.serviceNamespace ?? upstream.namespace };
    const service = index.get('Service', ref);
    if (!service) {
      out.push(fieldError('resolve', upstream.origin, path, `kube.selector cannot be checked: Service ${showRef(ref)} is not among the inputs (${WHY}, so the selector must be the Service's own)`, `add the Service to the input (the selector must equal its spec.selector), or remove kube.selector`));
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
          'give each subset (e.g. each version) its own Service and point an Upstream at each, or remove kube.selector',
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
  return quote(Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(','));
}
