/** Gloo's Route (proxy.proto, virtual_service.proto): matchers, one action, options; shared by VirtualServices and RouteTables. */
import { Type, type Static } from '@sinclair/typebox';
import { destination, weightedDestinations } from './destinations.js';
import { differs, note, refused } from './gloo.js';
import { matcher } from './matchers.js';
import { dynamicForwardProxy } from './http-listener-refusals.js';
import { resourceRef } from './resource.js';
import { optionsConfigRefs } from './option-resources.js';
import { routeOptions } from './route-options.js';
import {
  atMostOne,
  boolean,
  exactlyOne,
  lineOrEmpty,
  namespaceName,
  object,
  protoEnum,
  pathPrefix,
  resourceName,
  singleLine,
  string,
  stringMap,
  constant,
} from './schema.js';

/** Gloo's RedirectAction.RedirectResponseCode, Envoy's names. */
export const REDIRECT_CODES = [
  'MOVED_PERMANENTLY',
  'FOUND',
  'SEE_OTHER',
  'TEMPORARY_REDIRECT',
  'PERMANENT_REDIRECT',
] as const;

/** Gloo's label selector operators (the proto enum's names); unset: Equals. */
export const LABEL_OPERATORS = [
  'Equals',
  'DoubleEquals',
  'NotEquals',
  'In',
  'NotIn',
  'Exists',
  'DoesNotExist',
  'GreaterThan',
  'LessThan',
] as const;

// A Kubernetes label key: an optional DNS-subdomain prefix and "/", then a name of at most 63 characters.
const labelKey = Type.String({
  maxLength: 317,
  pattern:
    '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$',
});

export const labelExpression = object(
  {
    key: labelKey,
    operator: note(
      protoEnum(LABEL_OPERATORS),
      'Equals (unset), DoubleEquals, NotEquals, In, NotIn, Exists, DoesNotExist, GreaterThan, LessThan',
    ),
    values: Type.Array(string),
  },
  ['key'],
);

// Gloo refuses labels with expressions in one selector; values per operator: resolve.
const selector = object(
  {
    namespaces: note(
      Type.Array(Type.Union([namespaceName, constant('*')]), { uniqueItems: true }),
      '"*": every namespace; unset: the namespace of the delegating resource',
    ),
    labels: note(stringMap, 'every label must be on the RouteTable; none: every RouteTable of the namespaces'),
    expressions: note(
      Type.Array(labelExpression, { minItems: 1 }),
      'Kubernetes label requirements, all of which must hold; not with labels (Gloo would select nothing)',
    ),
  },
  [],
  atMostOne('labels', 'expressions'),
);

// Gloo's DelegateAction: a RouteTable by ref or by selector, or by the deprecated name/namespace (with a name).
const delegateAction = note(
  object(
    {
      name: differs(
        resourceName,
        'deprecated, as in Gloo; not together with ref or selector (Gloo would silently ignore them)',
      ),
      namespace: note(namespaceName, 'deprecated, with name'),
      ref: resourceRef,
      selector,
    },
    [],
    exactlyOne('ref', 'selector', 'name'),
  ),
  "the route's single prefix matcher (none: \"/\") is delegated; the RouteTables' routes are inlined in its place (by weight, then namespace and name), each path starting with that prefix; routes inherit the delegating route's options they do not set; nested at most 8 RouteTables deep; cycles are errors",
);

const routeAction = object(
  {
    single: destination,
    multi: weightedDestinations,
    upstreamGroup: note(resourceRef, 'weighted as routeAction.multi, with the destinations in the UpstreamGroup'),
    clusterHeader: refused('cluster names are internal to Sluice', 'name the upstream in routeAction.single'),
    dynamicForwardProxy: dynamicForwardProxy(),
  },
  [],
  exactlyOne('single', 'multi', 'upstreamGroup'),
);

// pathRedirect with prefixRewrite: resolve says which to keep.
const redirectAction = object({
  hostRedirect: singleLine,
  pathRedirect: note(pathPrefix, 'not with prefixRewrite'),
  prefixRewrite: note(lineOrEmpty, 'not with pathRedirect'),
  responseCode: note(
    protoEnum(REDIRECT_CODES),
    'MOVED_PERMANENTLY (the default), FOUND, SEE_OTHER, TEMPORARY_REDIRECT, PERMANENT_REDIRECT',
  ),
  httpsRedirect: boolean,
  stripQuery: boolean,
});

const directResponseAction = object(
  {
    status: note(Type.Integer({ minimum: 200, maximum: 599 }), '200 to 599, as Envoy allows'),
    body: note(
      string,
      "at most 4096 bytes (Envoy's limit for a route configuration), or the routeOptions.maxDirectResponseBodySizeBytes of each Gateway that serves it",
    ),
  },
  ['status'],
);

const inheritable = (what: string) =>
  `on a delegating route or a RouteTable's route: the child routes ${what}; unset: the parent's setting (false at the VirtualService)`;

export const route = object(
  {
    matchers: note(Type.Array(matcher), 'none: the route matches every path (prefix "/")'),
    inheritableMatchers: note(
      boolean,
      inheritable("add the parent matcher's headers, query parameters and methods to theirs"),
    ),
    inheritablePathMatchers: note(
      boolean,
      inheritable("match the parent's prefix (and case sensitivity) instead of their own path"),
    ),
    delegateAction,
    routeAction,
    graphqlApiRef: note(resourceRef, "Gloo Enterprise 1.x's field: the route is served by sluice-graphql"),
    redirectAction,
    directResponseAction,
    options: routeOptions,
    name: differs(
      singleLine,
      'in Envoy\'s route name, which explain, access logs (%ROUTE_NAME%) and the admin page show: "<namespace>.<VirtualService>/<position>:<name>", the names of the delegating routes first ("…/3:tickets/refunds"); Gloo builds its own longer form',
    ),
    optionsConfigRefs: optionsConfigRefs('RouteOption'),
  },
  [],
  exactlyOne('routeAction', 'graphqlApiRef', 'redirectAction', 'directResponseAction', 'delegateAction'),
);

export const routes = note(Type.Array(route), 'kept in the order written');

export type RouteSpec = Static<typeof route>;
export type RedirectSpec = Static<typeof redirectAction>;
export type DirectResponseSpec = Static<typeof directResponseAction>;
export type DelegateActionSpec = Static<typeof delegateAction>;
export type LabelExpressionSpec = Static<typeof labelExpression>;
