/**
 * Protobuf types the xDS server needs: the discovery messages it speaks and
 * the encoder that turns a proto3 JSON resource into the bytes of an Any.
 */
import { loadRoot, lookupType } from '../../protos/envoy.js';
import type { Json } from '../translate/output.js';
import { encodeMessage } from '../verify/proto-json.js';

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

/** Binary encoding of one resource (proto3 JSON, snake_case, WKTs) as the message named by its type URL. */
export function encodeResource(typeUrl: string, json: Json): Uint8Array {
  return encodeMessage(typeUrl, json);
}
