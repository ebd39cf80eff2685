/**
 * Kubernetes' own kinds Sluice reads: `v1` Service, Secret and Pod, and
 * `discovery.k8s.io/v1` EndpointSlice. What Sluice reads of them is typed;
 * the rest of their usual fields (as `kubectl get -o yaml` writes them) is
 * accepted and ignored.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { anyValue, constant, boolean, mapOf, object, oneOfValues, port, string, stringMap } from './schema.js';
import { kind, metadata, type KindDefinition } from './resource.js';

const servicePort = object(
  {
    name: string,
    port,
    targetPort: Type.Unsafe<number | string>({ type: ['integer', 'string'] }),
    protocol: oneOfValues(['TCP', 'UDP', 'SCTP']),
    nodePort: port,
    appProtocol: string,
  },
  ['port'],
);

const serviceSpec = object({
  type: oneOfValues(['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName']),
  selector: stringMap,
  ports: Type.Array(servicePort),
  clusterIP: string,
  clusterIPs: Type.Array(string),
  externalName: string,
  sessionAffinity: string,
  ipFamilies: Type.Array(string),
  ipFamilyPolicy: string,
  internalTrafficPolicy: string,
  externalTrafficPolicy: string,
  publishNotReadyAddresses: boolean,
  // What the API server adds or other controllers read: accepted, not used.
  allocateLoadBalancerNodePorts: anyValue,
  externalIPs: anyValue,
  healthCheckNodePort: anyValue,
  loadBalancerClass: anyValue,
  loadBalancerIP: anyValue,
  loadBalancerSourceRanges: anyValue,
  sessionAffinityConfig: anyValue,
  trafficDistribution: anyValue,
});

export const SERVICE = kind('v1', 'Service', serviceSpec);

/** A kind whose fields sit at the top level, beside metadata, not under a spec; `status` is accepted and ignored. */
function topLevel(
  apiVersion: string,
  name: string,
  fields: Record<string, TSchema>,
  required: readonly string[] = [],
): KindDefinition {
  const properties: Record<string, TSchema> = {
    apiVersion: constant(apiVersion),
    kind: constant(name),
    metadata,
    status: anyValue,
    ...fields,
  };
  return { apiVersion, kind: name, document: object(properties, ['apiVersion', 'kind', 'metadata', ...required]) };
}

/** A Secret holds its data at the top level, not under spec. */
export const SECRET = topLevel('v1', 'Secret', {
  type: string,
  data: mapOf(Type.String({ pattern: '^[A-Za-z0-9+/]*={0,2}$' })),
  stringData: stringMap,
  immutable: boolean,
});

/** A Pod: only its labels are read (an Upstream's kube.selector and subsets match them); its spec is the kubelet's business. */
export const POD = kind('v1', 'Pod', anyValue);

const endpointConditions = object({ ready: boolean, serving: boolean, terminating: boolean });

const objectReference = object({
  kind: string,
  name: string,
  namespace: string,
  uid: anyValue,
  apiVersion: anyValue,
  resourceVersion: anyValue,
  fieldPath: anyValue,
});

const endpoint = object(
  {
    addresses: Type.Array(Type.String({ minLength: 1, format: 'host' }), { minItems: 1 }),
    conditions: endpointConditions,
    hostname: string,
    nodeName: string,
    zone: string,
    targetRef: objectReference,
    hints: anyValue,
    deprecatedTopology: anyValue,
  },
  ['addresses'],
);

const endpointPort = object({
  name: string,
  port: Type.Integer({ minimum: 1, maximum: 65535 }),
  protocol: oneOfValues(['TCP', 'UDP', 'SCTP']),
  appProtocol: string,
});

/** The label that names an EndpointSlice's Service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** An EndpointSlice: the addresses of some of a Service's endpoints, with their ports and conditions. */
export const ENDPOINT_SLICE = topLevel(
  'discovery.k8s.io/v1',
  'EndpointSlice',
  {
    addressType: oneOfValues(['IPv4', 'IPv6', 'FQDN']),
    // The API server writes `endpoints: null` for a slice with none.
    endpoints: Type.Unsafe<EndpointSpec[] | null>({ anyOf: [Type.Array(endpoint), { type: 'null' }] }),
    ports: Type.Unsafe<EndpointPortSpec[] | null>({ anyOf: [Type.Array(endpointPort), { type: 'null' }] }),
  },
  ['addressType'],
);

export type ServiceSpec = Static<typeof serviceSpec>;
export type EndpointSpec = Static<typeof endpoint>;
export type EndpointPortSpec = Static<typeof endpointPort>;
/** The fields of an EndpointSlice document Sluice reads. */
export interface EndpointSliceValue {
  addressType: 'IPv4' | 'IPv6' | 'FQDN';
  endpoints?: EndpointSpec[] | null;
  ports?: EndpointPortSpec[] | null;
}
