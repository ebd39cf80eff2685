import type { OidcIR } from '../../ir/oidc.js';
import type { Json } from '../output.js';

export function compileOidc(_o: OidcIR): Json {
  return {};
}
