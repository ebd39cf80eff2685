/**
 * The gRPC services the server answers on: the Aggregated Discovery Service
 * (StreamAggregatedResources, DeltaAggregatedResources), and the discovery
 * services of one type each (RDS, CDS, EDS, LDS, SDS, ECDS) for an Envoy
 * that gets Sluice's part from its own config sources (mesh mode). Every one
 * runs the same two stream handlers; requests are decoded by protobufjs,
 * responses framed by wire.ts.
 */
import type * as grpc from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import { ADS_SERVICE, discoveryTypes } from '../../contract/discovery.js';
import {
  sotwResponseBytes,
  type DeltaRequest,
  type EncodedDeltaResponse,
  type EncodedResponse,
  type Request,
} from './wire.js';

/** The discovery services of one type each: service name and method suffix (Stream<suffix>, Delta<suffix>). */
const SINGLE_TYPE_SERVICES: ReadonlyArray<readonly [string, string]> = [
  ['envoy.service.listener.v3.ListenerDiscoveryService', 'Listeners'],
  ['envoy.service.route.v3.RouteDiscoveryService', 'Routes'],
  ['envoy.service.cluster.v3.ClusterDiscoveryService', 'Clusters'],
  ['envoy.service.endpoint.v3.EndpointDiscoveryService', 'Endpoints'],
  ['envoy.service.secret.v3.SecretDiscoveryService', 'Secrets'],
  ['envoy.service.extension.v3.ExtensionConfigDiscoveryService', 'ExtensionConfigs'],
];

export interface DiscoveryHandlers {
  sotw: (call: grpc.ServerDuplexStream<Request, EncodedResponse>) => void;
  delta: (call: grpc.ServerDuplexStream<DeltaRequest, EncodedDeltaResponse>) => void;
}

/** Adds every discovery service to `server`, each method served by `handlers`. */
export function addDiscoveryServices(server: grpc.Server, handlers: DiscoveryHandlers): void {
  const types = discoveryTypes();
  const decoder = (type: protobuf.Type) => (buf: Buffer) =>
    type.toObject(type.decode(buf), { defaults: true, arrays: true, longs: String, enums: String });
  const sotw = (path: string) => ({
    path,
    requestStream: true,
    responseStream: true,
    requestSerialize: (m: object) =>
      Buffer.from(types.DiscoveryRequest.encode(types.DiscoveryRequest.fromObject(m)).finish()),
    requestDeserialize: decoder(types.DiscoveryRequest),
    responseSerialize: sotwResponseBytes,
    responseDeserialize: decoder(types.DiscoveryResponse),
  });
  const delta = (path: string) => ({
    path,
    requestStream: true,
    responseStream: true,
    requestSerialize: (m: object) =>
      Buffer.from(types.DeltaDiscoveryRequest.encode(types.DeltaDiscoveryRequest.fromObject(m)).finish()),
    requestDeserialize: decoder(types.DeltaDiscoveryRequest),
    responseSerialize: (r: EncodedDeltaResponse) => Buffer.concat(r.parts),
    responseDeserialize: decoder(types.DeltaDiscoveryResponse),
  });
  server.addService(
    {
      StreamAggregatedResources: sotw(`${ADS_SERVICE}/StreamAggregatedResources`),
      DeltaAggregatedResources: delta(`${ADS_SERVICE}/DeltaAggregatedResources`),
    },
    { StreamAggregatedResources: handlers.sotw, DeltaAggregatedResources: handlers.delta },
  );
  // One type per stream, as an Envoy configured without ADS asks (a config_source naming this server's cluster): the same streams, whose requests name their type.
  for (const [service, suffix] of SINGLE_TYPE_SERVICES) {
    server.addService(
      {
        [`Stream${suffix}`]: sotw(`/${service}/Stream${suffix}`),
        [`Delta${suffix}`]: delta(`/${service}/Delta${suffix}`),
      },
      { [`Stream${suffix}`]: handlers.sotw, [`Delta${suffix}`]: handlers.delta },
    );
  }
}
