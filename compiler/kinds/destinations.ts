/** Gloo's Destination and MultiDestination (proxy.proto), the latter also the spec of an UpstreamGroup. */
import { Type, type Static } from '@sinclair/typebox';
import { awsDestination } from './aws.js';
import { consul, glooEnvoy, note, refuseEach } from './gloo.js';
import { weightedDestinationOptions } from './destination-options.js';
import { resourceRef } from './resource.js';
import { exactlyOne, object, port, stringMap, uint32 } from './schema.js';

export const destination = object(
  {
    kube: object({ ref: resourceRef, port }, ['ref', 'port']),
    upstream: resourceRef,
    consul: consul(),
    destinationSpec: object(
      {
        aws: note(
          awsDestination,
          'the Lambda function of an aws Upstream the route invokes; on a weighted destination (multi, an UpstreamGroup) an error: not implemented yet',
        ),
        ...refuseEach(['azure', 'rest', 'grpc'], glooEnvoy),
      },
      ['aws'],
    ),
    subset: note(
      object({ values: stringMap }, ['values']),
      "the endpoints with these labels, by the upstream's subsetSpec: its keys must be those of one of its selectors",
    ),
  },
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
