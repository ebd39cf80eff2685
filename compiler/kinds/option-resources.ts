/**
 * Gloo's option resources (external_options.proto): a VirtualHostOption or
 * RouteOption holds `options` that virtual hosts and routes take by naming it
 * in `optionsConfigRefs.delegateOptions`. Gloo merges them shallowly: a
 * top-level option set inline wins, then the first resource named that sets it.
 */
import { Type, type Static } from '@sinclair/typebox';
import { note, refused } from './gloo.js';
import { kind, resourceRef } from './resource.js';
import { object } from './schema.js';
import { routeOptions } from './route-options.js';
import { virtualHostOptions } from './virtual-host-options.js';

const MERGE =
  "each top-level option the virtual host or route does not set itself comes from the first resource listed that sets it (Gloo's shallow merge); a resource that is missing is an error";

/** Gloo's DelegateOptionsRefs, on a virtual host (VirtualHostOption) or a route (RouteOption). */
export const optionsConfigRefs = (kindName: string) =>
  note(object({ delegateOptions: note(Type.Array(resourceRef), `${kindName} resources, in priority order`) }), MERGE);

const gatewayApiOnly = (what: string) =>
  refused(
    `targetRefs attach options to Kubernetes Gateway API objects (${what}), which Sluice does not read`,
    'name this resource in optionsConfigRefs.delegateOptions',
  );

const virtualHostOptionSpec = object({
  options: virtualHostOptions,
  targetRefs: gatewayApiOnly('gateway.networking.k8s.io Gateways'),
});
const routeOptionSpec = object({
  options: routeOptions,
  targetRefs: gatewayApiOnly('gateway.networking.k8s.io HTTPRoutes'),
});

export const VIRTUAL_HOST_OPTION = kind(
  'gateway.gateway.example/v1',
  'VirtualHostOption',
  virtualHostOptionSpec,
  'gateway.solo.io/v1',
);
export const ROUTE_OPTION = kind('gateway.gateway.example/v1', 'RouteOption', routeOptionSpec, 'gateway.solo.io/v1');

export type VirtualHostOptionSpec = Static<typeof virtualHostOptionSpec>;
export type RouteOptionSpec = Static<typeof routeOptionSpec>;
export type OptionsConfigRefsSpec = Static<ReturnType<typeof optionsConfigRefs>>;
