/** Protobuf types the xDS server needs: the discovery messages it speaks. */
import { loadRoot, lookupType } from '../../protos/envoy.js';

/** The discovery messages, as protobufjs types (snake_case fields). */
export function discoveryTypes() {
  loadRoot();
  return {
    DiscoveryRequest: lookupType('envoy.service.discovery.v3.DiscoveryRequest'),
    DiscoveryResponse: lookupType('envoy.service.discovery.v3.DiscoveryResponse'),
    DeltaDiscoveryRequest: lookupType('envoy.service.discovery.v3.DeltaDiscoveryRequest'),
    DeltaDiscoveryResponse: lookupType('envoy.service.discovery.v3.DeltaDiscoveryResponse'),
    Resource: lookupType('envoy.service.discovery.v3.Resource'),
  };
}
