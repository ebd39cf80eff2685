/** Gloo's EarlyHeaderManipulation (headers.proto) of a Gateway's connection manager settings. */
import { type Static } from '@sinclair/typebox';
import { note } from './gloo.js';
import { headerNames, requestHeaderValues } from './route-options.js';
import { object } from './schema.js';

export const earlyHeaderManipulation = note(
  object({
    headersToAdd: note(
      requestHeaderValues,
      'added to each request before routing; the same names are refused as in headerManipulation',
    ),
    headersToRemove: note(headerNames, 'removed from each request before routing, after headersToAdd'),
  }),
  "Envoy's early_header_mutation_extensions (header_mutation): the connection manager changes the request's headers before it picks a route or runs a filter",
);

export type EarlyHeaderManipulationSpec = Static<typeof earlyHeaderManipulation>;
