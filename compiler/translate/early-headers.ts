/**
 * Gloo's earlyHeaderManipulation -> the connection manager's
 * early_header_mutation_extensions: Envoy's header_mutation extension, which
 * changes the request's headers before routing and before any HTTP filter.
 * Its adds come first, then its removals, as Gloo writes them.
 */
import type { EarlyHeadersIR } from '../ir/model.js';
import type { Json } from './output.js';
import { headerValueOption } from './routes.js';

export const EARLY_HEADER_MUTATION = 'envoy.http.early_header_mutation.header_mutation';
const TYPE = 'type.googleapis.com/envoy.extensions.http.early_header_mutation.header_mutation.v3.HeaderMutation';

export function earlyHeaderMutation(early: EarlyHeadersIR | undefined): Json {
  if (!early || early.add.length + early.remove.length === 0) return {};
  return {
    early_header_mutation_extensions: [
      {
        name: EARLY_HEADER_MUTATION,
        typed_config: {
          '@type': TYPE,
          mutations: [
            ...early.add.map((a) => ({ append: headerValueOption(a) })),
            ...early.remove.map((name) => ({ remove: name })),
          ],
        },
      },
    ],
  };
}
