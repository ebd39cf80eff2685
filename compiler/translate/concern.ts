/**
 * One HTTP filter concern (cors, jwt, rbac, extauth, graphql): whether the model
 * uses it, its filter in the connection manager, its configuration of each
 * virtual host, and the sidecar cluster it needs. The core translator only
 * knows the ordered list of concerns (see ./concerns.ts). Every part of a
 * virtual host's output depends on that virtual host and on which concerns
 * are in use, nothing else, so translate can keep it while neither changes.
 */
import type { DestinationOptionsIR } from '../ir/destination-options.js';
import type { RouteIR, VirtualHostIR } from '../ir/model.js';
import type { ClusterPair } from './clusters.js';
import type { CompileOptions, Json } from './output.js';

export interface HttpFilterConcern {
  /** Envoy filter name, e.g. `envoy.filters.http.jwt_authn`; the key of its per-virtual-host config. */
  readonly filterName: string;
  /** What tells this concern's output apart when its filter is made from the inputs (a customAuth server's settings); unset: the filter name. */
  readonly usageKey?: string;
  /** Whether this virtual host uses it. The concern is in use when any host does; only then is it in the chain and configures every virtual host. */
  usedBy(vh: VirtualHostIR): boolean;
  /**
   * The filter when no virtual host uses it, doing nothing (none: a concern
   * without a filter). Mesh mode keeps every filter in the chain a team
   * pasted, so adding the first JWT host needs no change to its Envoy.
   */
  idleFilter?(): Json;
  /** The HTTP filter (`{name, typed_config}`) when in use; none for a concern without a filter of its own (jwt's is built by translate, see jwtFilter). */
  httpFilter?(): Json;
  /** `typed_per_filter_config` value of one virtual host, when in use (undefined: none for this one). */
  perVirtualHost?(vh: VirtualHostIR): Json | undefined;
  /** A route's own `typed_per_filter_config` value, replacing its virtual host's (undefined: none). */
  perRoute?(route: RouteIR): Json | undefined;
  /** A weighted destination's own `typed_per_filter_config` value, replacing its route's once Envoy picks it (undefined: none). */
  perDestination?(options: DestinationOptionsIR): Json | undefined;
  /** Headers a virtual host removes from every request it sends upstream, in use or not. */
  requestHeadersToRemove?(vh: VirtualHostIR): string[];
  /** The sidecar cluster, when in use. */
  sidecarCluster?(options: CompileOptions): ClusterPair;
}
