/** Gloo's Destination and MultiDestination (proxy.proto), the latter also the spec of an UpstreamGroup. */
import { Type, type Static } from '@sinclair/typebox';
import { consul, glooEnvoy, note, notYet, REASONS, refused } from './gloo.js';
import { resourceRef } from './resource.js';
import { exactlyOne, object, port, uint32 } from './schema.js';

export const destination = object(
  {
    kube: object({ ref: resourceRef, port }, ['ref', 'port']),
    upstream: resourceRef,
    consul: consul(),
    destinationSpec: glooEnvoy(),
    subset: refused(`subsets select pods, and ${REASONS.noEndpoints}`, 'use one Kubernetes Service (or Upstream) per subset'),
  },
  [],
  exactlyOne('kube', 'upstream'),
);

export const weightedDestinations = object(
  {
    destinations: Type.Array(object({ destination, weight: note(uint32, 'requests are split in proportion to the weights; all 0 is an error'), options: notYet() }, ['destination']), { minItems: 1 }),
  },
  ['destinations'],
);

export type DestinationSpec = Static<typeof destination>;
export type WeightedDestinationSpec = Static<typeof weightedDestinations>['destinations'][number];
