/** Gloo's VirtualService (virtual_service.proto) and RouteTable (route_table.proto). */
import { Type, type Static } from '@sinclair/typebox';
import { differs, note } from './gloo.js';
import { optionsConfigRefs } from './option-resources.js';
import { kind } from './resource.js';
import { routes } from './routes.js';
import { object, domain, string } from './schema.js';
import { sslConfig } from './tls.js';
import { virtualHostOptions } from './virtual-host-options.js';

const virtualServiceSpec = object(
  {
    displayName: differs(string, 'kept in the compiled model (sluice compile --dump-ir); no Envoy field carries it'),
    virtualHost: object(
      {
        domains: Type.Array(domain, { minItems: 1 }),
        routes,
        options: virtualHostOptions,
        optionsConfigRefs: optionsConfigRefs('VirtualHostOption'),
      },
      ['domains'],
    ),
    sslConfig: note(
      sslConfig,
      'served only by Gateways with ssl: true (and one without sslConfig only by plain ones), as Gloo',
    ),
  },
  ['virtualHost'],
);

// Gloo's RouteTable: routes a delegateAction inlines; weight orders the tables one selector matches.
const routeTableSpec = object({
  routes,
  weight: note(
    Type.Integer({ minimum: -2147483648, maximum: 2147483647 }),
    'the tables one delegateAction selects are inlined by ascending weight (unset: 0); tables of equal weight have their routes sorted by path specificity, as Gloo (a warning)',
  ),
});

export const VIRTUAL_SERVICE = kind(
  'gateway.gateway.example/v1',
  'VirtualService',
  virtualServiceSpec,
  'gateway.solo.io/v1',
);
export const ROUTE_TABLE = kind('gateway.gateway.example/v1', 'RouteTable', routeTableSpec, 'gateway.solo.io/v1');

export type VirtualServiceSpec = Static<typeof virtualServiceSpec>;
export type RouteTableSpec = Static<typeof routeTableSpec>;
