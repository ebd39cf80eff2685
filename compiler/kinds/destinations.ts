/** Gloo's Destination and MultiDestination (proxy.proto), the latter also the spec of an UpstreamGroup. */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { awsDestination } from './aws.js';
import { consul, glooEnvoy, note, refuseEach } from './gloo.js';
import { weightedDestinationOptions } from './destination-options.js';
import { resourceRef } from './resource.js';
import { exactlyOne, object, port, stringMap, uint32 } from './schema.js';

const SUBSET =
  "the endpoints with these labels, by the upstream's subsetSpec: its keys must be those of one of its selectors";

/** A Destination's fields; `subset` and `destinationSpec` are where a TCP destination differs. */
export function destinationFields<S extends TSchema, D extends TSchema>(subset: S, destinationSpec: D) {
  return {
    kube: object({ ref: resourceRef, port }, ['ref', 'port']),
    upstream: resourceRef,
    consul: consul(),
    destinationSpec,
    subset,
  };
}
export const subsetSelector = object({ values: stringMap }, ['values']);

/** A route's destinationSpec: only the Lambda function of an aws Upstream is built. */
const routeDestinationSpec = object(
  {
    aws: note(
      awsDestination,
      'the Lambda function of an aws Upstream the route invokes; on a weighted destination (multi, an UpstreamGroup) an error: not implemented yet',
    ),
    ...refuseEach(['azure', 'rest', 'grpc'], glooEnvoy),
  },
  ['aws'],
);

export const destination = object(
  destinationFields(note(subsetSelector, SUBSET), routeDestinationSpec),
  [],
  exactlyOne('kube', 'upstream'),
);

export const weightedDestinations = object(
  {
    destinations: Type.Array(
      object(
        {
          destination,
          weight: note(uint32, 'requests are split in proportion to the weights; all 0 is an error'),
          options: note(
            weightedDestinationOptions,
            "headers, buffer and csrf settings of requests sent to this destination (Envoy's ClusterWeight)",
          ),
        },
        ['destination'],
      ),
      { minItems: 1 },
    ),
  },
  ['destinations'],
);

export type DestinationSpec = Static<typeof destination>;
export type WeightedDestinationSpec = Static<typeof weightedDestinations>['destinations'][number];
