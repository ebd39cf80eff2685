/** Kubernetes `v1` Service and Secret: what Sluice reads of them is typed, the rest of their usual fields is accepted. */
import { Type, type Static } from '@sinclair/typebox';
import { constant, boolean, mapOf, object, oneOfValues, port, string, stringMap } from './schema.js';
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
});

export const SERVICE = kind('v1', 'Service', serviceSpec);

/** A Secret holds its data at the top level, not under spec. */
export const SECRET: KindDefinition = {
  apiVersion: 'v1',
  kind: 'Secret',
  document: object(
    {
      apiVersion: constant('v1'),
      kind: constant('Secret'),
      metadata,
      type: string,
      data: mapOf(Type.String({ pattern: '^[A-Za-z0-9+/]*={0,2}$' })),
      stringData: stringMap,
      immutable: boolean,
    },
    ['apiVersion', 'kind', 'metadata'],
  ),
};

export type ServiceSpec = Static<typeof serviceSpec>;
