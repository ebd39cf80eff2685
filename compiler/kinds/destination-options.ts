/**
 * Gloo's WeightedDestinationOptions (weighted_destination_options.proto): what
 * one destination of routeAction.multi (or of an UpstreamGroup) changes when
 * Envoy picks it. Each supported field maps to Envoy's
 * WeightedCluster.ClusterWeight: its header lists and its
 * typed_per_filter_config, which Envoy prefers over the route's once it has
 * picked the cluster (at route selection, before the HTTP filters run).
 */
import { type Static } from '@sinclair/typebox';
import { routeCsrf } from './csrf.js';
import { bufferPerRoute } from './gateway-http-options.js';
import { glooEnvoy, note, REASONS, refused } from './gloo.js';
import { headerManipulation } from './route-options.js';
import { object } from './schema.js';

export const weightedDestinationOptions = object({
  headerManipulation: note(
    headerManipulation,
    "only on requests sent to this destination and their responses; applied before the route's and the virtual host's",
  ),
  bufferPerRoute: note(
    bufferPerRoute,
    "replaces the route's and the virtual host's for requests sent to this destination",
  ),
  csrf: note(routeCsrf, "replaces the route's and the virtual host's for requests sent to this destination"),
  extauth: refused(
    "per-destination ext auth settings are not built (Envoy could hold them in the destination's per-filter config)",
    "set extauth on the route's options",
  ),
  transformations: glooEnvoy(),
  stagedTransformations: glooEnvoy(),
  extensions: refused(REASONS.extensions),
});

export type WeightedDestinationOptionsSpec = Static<typeof weightedDestinationOptions>;
