/** Gloo's RouteConfigurationOptions (route_configuration_options.proto): a Gateway's `routeOptions`, fields of each of its route configurations. */
import { type Static } from '@sinclair/typebox';
import { note } from './gloo.js';
import { boolean, object, uint32 } from './schema.js';

export const routeConfigurationOptions = note(
  object({
    maxDirectResponseBodySizeBytes: note(
      uint32,
      "Envoy's max_direct_response_body_size_bytes (unset: 4096): a directResponseAction body of a VirtualService the Gateway serves may be this long",
    ),
    mostSpecificHeaderMutationsWins: note(
      boolean,
      "Envoy's most_specific_header_mutations_wins: headerManipulation is applied from the virtual host's to the weighted destination's, so a route's overwriting header wins over its virtual host's (unset: the reverse)",
    ),
  }),
  "fields of each of the Gateway's route configurations (a hybrid Gateway's too)",
);

export type RouteConfigurationOptionsSpec = Static<typeof routeConfigurationOptions>;
