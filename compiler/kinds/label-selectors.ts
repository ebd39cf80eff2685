/** Gloo's label selectors of gateways: selectors.Selector (delegated gateways) and VirtualServiceSelectorExpressions (an httpGateway's). */
import { Type, type Static } from '@sinclair/typebox';
import { note } from './gloo.js';
import { labelExpression } from './routes.js';
import { constant, namespaceName, object, stringMap } from './schema.js';

// Gloo's selectors.Selector: namespaces, labels and expressions all hold (unlike a RouteTable selector's, labels and expressions combine).
export const gatewaySelector = object({
  namespaces: note(
    Type.Array(Type.Union([namespaceName, constant('*')]), { uniqueItems: true }),
    '"*" or none: every namespace',
  ),
  labels: note(stringMap, 'every label must be on the resource'),
  expressions: note(
    Type.Array(labelExpression, { minItems: 1 }),
    'Kubernetes label requirements, all of which must hold (with labels too)',
  ),
});

// Gloo's VirtualServiceSelectorExpressions: the VirtualServices whose labels satisfy every expression.
export const virtualServiceExpressions = note(
  object({
    expressions: note(
      Type.Array(labelExpression),
      'Kubernetes label requirements, all of which must hold; none: every VirtualService',
    ),
  }),
  'selects VirtualServices by label requirements (In, NotIn, Exists, DoesNotExist, ...), in virtualServiceNamespaces; not with virtualServices or virtualServiceSelector (Gloo would use the expressions and ignore the others)',
);

export type GatewaySelectorSpec = Static<typeof gatewaySelector>;
