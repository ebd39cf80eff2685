/**
 * One HTTP filter concern (jwt, rbac, extauth, graphql): it adds its filter to
 * the connection manager once, configures each virtual host, and contributes
 * the extra clusters and sidecar resources it needs. The core translator only
 * knows the ordered list of concerns (see ./concerns.ts).
 */
import type { Diagnostic } from '../diagnostics.js';
import type { Model } from '../resolve/model.js';
import type { CompileOptions, Json } from './output.js';

export interface ConcernResult {
  /** The HTTP filter (`{name, typed_config}`), or undefined when no virtual host uses this concern. */
  httpFilter?: Json;
  /** `typed_per_filter_config` value for each virtual host, by virtual host name, keyed by the filter name by the caller. */
  perVirtualHost: Map<string, Json>;
  /** Headers a virtual host removes from every request it sends upstream, by virtual host name. */
  requestHeadersToRemove?: Map<string, string[]>;
  /** Extra clusters (sidecars); upstream clusters come from the model. */
  clusters: Json[];
  authConfigs?: Json[];
  graphqlApis?: Json[];
  diagnostics: Diagnostic[];
}

export interface HttpFilterConcern {
  /** Envoy filter name, e.g. `envoy.filters.http.jwt_authn`. */
  readonly filterName: string;
  translate(model: Model, options: CompileOptions): ConcernResult;
}

export function emptyResult(): ConcernResult {
  return { perVirtualHost: new Map(), clusters: [], diagnostics: [] };
}
