/**
 * A small cluster for the `serve --kube` tests and the kube benchmark: the
 * API server double with the CRDs of every kind serve watches, objects as
 * `kubectl apply` would store them, and `serve --kube` started in-process
 * against it.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { startServe, type ServeOptions, type Serving } from '../../control-plane/run.js';
import { type KubeApiServer, type KubeObject } from '../../harness/kube-apiserver.js';
export { crdTypesFor as crdTypes } from '../../harness/kube-crds.js';
import { tempDir } from '../../harness/temp-dir.js';

export function service(namespace: string, name: string, port: number, selector: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace },
    spec: {
      type: 'ClusterIP',
      clusterIP: '10.96.0.10',
      selector,
      ports: [{ name: 'http', port, targetPort: port, protocol: 'TCP' }],
    },
  };
}

export interface EndpointSpec {
  ip: string;
  pod?: string;
  ready?: boolean;
  terminating?: boolean;
  zone?: string;
}

export function endpointSlice(
  namespace: string,
  serviceName: string,
  port: number,
  endpoints: EndpointSpec[],
  suffix = 'x1',
): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: `${serviceName}-${suffix}`, namespace, labels: { 'kubernetes.io/service-name': serviceName } },
    addressType: 'IPv4',
    endpoints: endpoints.map((e) => ({
      addresses: [e.ip],
      conditions: { ready: e.ready ?? true, serving: e.ready ?? true, terminating: e.terminating ?? false },
      ...(e.pod ? { targetRef: { kind: 'Pod', name: e.pod, namespace } } : {}),
      ...(e.zone ? { zone: e.zone } : {}),
    })),
    ports: [{ name: 'http', port, protocol: 'TCP' }],
  };
}

export function pod(namespace: string, name: string, labels: Record<string, string>, ip: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels },
    spec: { containers: [{ name: 'app', image: 'app:1' }] },
    status: { phase: 'Running', podIP: ip },
  };
}

/** A VirtualService (Gloo's group) with one route per prefix to `upstream` (in `upstreamNamespace`), an optional subset each. */
export function virtualService(
  namespace: string,
  name: string,
  domain: string,
  routes: { prefix: string; upstream: string; upstreamNamespace: string; subset?: Record<string, string> }[],
  apiVersion = 'gateway.solo.io/v1',
): KubeObject {
  return {
    apiVersion,
    kind: 'VirtualService',
    metadata: { name, namespace },
    spec: {
      virtualHost: {
        domains: [domain],
        routes: routes.map((r) => ({
          matchers: [{ prefix: r.prefix }],
          routeAction: {
            single: {
              upstream: { name: r.upstream, namespace: r.upstreamNamespace },
              ...(r.subset ? { subset: { values: r.subset } } : {}),
            },
          },
        })),
      },
    },
  };
}

/** An Upstream (Gloo's group) of a Service port with subsets by `keys`. */
export function subsetUpstream(
  namespace: string,
  name: string,
  svc: { namespace: string; name: string; port: number },
  keys: string[],
): KubeObject {
  return {
    apiVersion: 'gloo.solo.io/v1',
    kind: 'Upstream',
    metadata: { name, namespace },
    spec: {
      kube: {
        serviceName: svc.name,
        serviceNamespace: svc.namespace,
        servicePort: svc.port,
        subsetSpec: { selectors: [{ keys }], fallbackPolicy: 'NO_FALLBACK' },
      },
    },
  };
}

export interface ServeKubeOptions extends Pick<ServeOptions, 'status' | 'webhook'> {
  namespaces?: string[];
  logger: Logger;
}

/** `serve --kube` in-process against `double`, ports chosen by the system. */
export async function serveKube(double: KubeApiServer, options: ServeKubeOptions): Promise<Serving> {
  const kubeconfig = path.join(tempDir('kube'), 'kubeconfig');
  writeFileSync(kubeconfig, double.kubeconfigYaml());
  return startServe({
    paths: [],
    kube: { kubeconfig, namespaces: options.namespaces, informer: { absentRetryMs: 200, pageSize: 50 } },
    compileOptions: DEFAULT_OPTIONS,
    host: '127.0.0.1',
    xdsPort: 0,
    adminPort: 0,
    logger: options.logger,
    status: options.status,
    webhook: options.webhook,
  });
}
