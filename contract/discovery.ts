/** The xDS discovery protocol as protobufjs types: spoken by `sluice serve` and by the sidecars' ADS client. */
import { lookupType } from './envoy.js';

/** gRPC path prefix of the Aggregated Discovery Service. */
export const ADS_SERVICE = '/envoy.service.discovery.v3.AggregatedDiscoveryService';

/** The discovery messages (snake_case fields). */
export function discoveryTypes() {
  return {
    DiscoveryRequest: lookupType('envoy.service.discovery.v3.DiscoveryRequest'),
    DiscoveryResponse: lookupType('envoy.service.discovery.v3.DiscoveryResponse'),
    DeltaDiscoveryRequest: lookupType('envoy.service.discovery.v3.DeltaDiscoveryRequest'),
    DeltaDiscoveryResponse: lookupType('envoy.service.discovery.v3.DeltaDiscoveryResponse'),
    Resource: lookupType('envoy.service.discovery.v3.Resource'),
  };
}
