/**
 * Translate: Model -> Envoy resources + sidecar resources. Pure: no I/O.
 * The core builds listener, routes and upstream clusters; each concern adds
 * its filter, per-virtual-host config, clusters and sidecar resources.
 */
import { fieldError, type Diagnostic } from '../diagnostics.js';
import type { Model } from '../resolve/model.js';
import { upstreamCluster } from './clusters.js';
import type { HttpFilterConcern } from './concern.js';
import { CONCERNS } from './concerns.js';
import { httpListener, listenerName } from './listener.js';
import type { CompileOptions, CompiledOutput, Json } from './output.js';
import { routeConfiguration, virtualHost } from './routes.js';

const byName = (a: Json, b: Json) => String(a.name).localeCompare(String(b.name));

export function translate(model: Model, options: CompileOptions, concerns: readonly HttpFilterConcern[] = CONCERNS): { output: CompiledOutput; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const httpFilters: Json[] = [];
  const perVirtualHost = new Map<string, Map<string, Json>>(model.virtualHosts.map((vh) => [vh.name, new Map()]));
  const headersToRemove = new Map<string, string[]>(model.virtualHosts.map((vh) => [vh.name, []]));
  const clusters = model.upstreams.map(upstreamCluster);
  const authConfigs: Json[] = [];
  const graphqlApis: Json[] = [];

  for (const concern of concerns) {
    const result = concern.translate(model, options);
    diagnostics.push(...result.diagnostics);
    for (const sidecar of result.clusters) {
      // A user's Upstream may take a sidecar cluster's name (`extauth`, `graphql`); Envoy would reject the pair.
      const taken = model.upstreams.find((u) => u.name === sidecar.name);
      if (taken) {
        diagnostics.push(fieldError('translate', taken.origin, ['metadata', 'name'], `"${taken.name}" is the name of a sidecar cluster in this output`, 'rename the Upstream (and the references to it)'));
      }
    }
    clusters.push(...result.clusters);
    authConfigs.push(...(result.authConfigs ?? []));
    graphqlApis.push(...(result.graphqlApis ?? []));
    for (const [vhName, headers] of result.requestHeadersToRemove ?? []) headersToRemove.get(vhName)?.push(...headers);
    if (!result.httpFilter) continue;
    httpFilters.push(result.httpFilter);
    for (const [vhName, config] of result.perVirtualHost) perVirtualHost.get(vhName)?.set(concern.filterName, config);
  }

  const routeConfig = routeConfiguration(
    listenerName(options.listenerPort),
    model.virtualHosts.map((vh) => virtualHost(vh, perVirtualHost.get(vh.name)!, headersToRemove.get(vh.name)!)),
  );
  return {
    output: {
      listeners: [httpListener(options.listenerAddress, options.listenerPort, httpFilters, routeConfig)],
      routes: [routeConfig],
      clusters: clusters.sort(byName),
      authConfigs: authConfigs.sort(byName),
      graphqlApis: graphqlApis.sort(byName),
    },
    diagnostics,
  };
}
