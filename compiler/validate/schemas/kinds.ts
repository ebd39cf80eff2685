/**
 * One JSON Schema per apiVersion/kind of SPEC.md section 2, plus Kubernetes
 * `v1` Service and Secret. Every field SPEC.md names is typed.
 */
import { boolean, exactlyOne, mapOf, nonEmptyString, object, port, resource, resourceName, resourceRef, string, stringMap, type Schema } from './common.js';

const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'];
const pathPrefix: Schema = { type: 'string', pattern: '^/', minLength: 1 };

const route = {
  ...object({
    matchers: { type: 'array', items: object({ prefix: pathPrefix }, ['prefix']) },
    routeAction: object(
      {
        single: {
          ...object({
            kube: object({ ref: resourceRef, port }, ['ref', 'port']),
            upstream: resourceRef,
          }),
          ...exactlyOne('kube', 'upstream'),
        },
      },
      ['single'],
    ),
    graphqlApiRef: resourceRef,
  }),
  ...exactlyOne('routeAction', 'graphqlApiRef'),
};

const jwtProvider = object(
  {
    issuer: nonEmptyString,
    jwks: {
      ...object({
        local: object({ key: nonEmptyString }, ['key']),
        remote: object({ url: { type: 'string', pattern: '^https?://[^\\s/]+' }, upstreamRef: resourceRef }, ['url', 'upstreamRef']),
      }),
      ...exactlyOne('local', 'remote'),
    },
  },
  ['issuer', 'jwks'],
);

const rbacPolicy = object(
  {
    permissions: object({
      methods: { type: 'array', items: { enum: HTTP_METHODS }, uniqueItems: true },
      pathPrefix,
    }),
    principals: {
      type: 'array',
      items: object({ jwtPrincipal: object({ claims: { ...stringMap, minProperties: 1 } }, ['claims']) }, ['jwtPrincipal']),
    },
  },
  ['permissions'],
);

export const virtualService = resource(
  'gateway.gateway.example/v1',
  'VirtualService',
  object(
    {
      displayName: string,
      virtualHost: object(
        {
          domains: { type: 'array', minItems: 1, items: nonEmptyString },
          routes: { type: 'array', items: route },
          options: object({
            jwt: object({ providers: { ...mapOf(jwtProvider), minProperties: 1 } }, ['providers']),
            rbac: object({ policies: { ...mapOf(rbacPolicy), minProperties: 1 } }, ['policies']),
            extauth: object({ configRef: resourceRef }, ['configRef']),
          }),
        },
        ['domains'],
      ),
    },
    ['virtualHost'],
  ),
);

const ldap = object(
  {
    address: nonEmptyString,
    userDnTemplate: nonEmptyString,
    allowedGroups: { type: 'array', items: nonEmptyString },
    searchFilter: nonEmptyString,
    membershipAttributeName: nonEmptyString,
    groupLookupSettings: object({ checkGroupsWithServiceAccount: boolean, credentialsSecretRef: resourceRef }),
    pool: object({ initialSize: { type: 'integer', minimum: 0, maximum: 100 }, maxSize: { type: 'integer', minimum: 1, maximum: 100 } }),
  },
  ['address', 'userDnTemplate', 'allowedGroups'],
);

export const authConfig = resource(
  'enterprise.gateway.example/v1',
  'AuthConfig',
  object({ configs: { type: 'array', minItems: 1, items: object({ ldap }, ['ldap']) } }, ['configs']),
);

export const upstream = resource(
  'gloo.gateway.example/v1',
  'Upstream',
  {
    ...object({
      kube: object({ selector: stringMap, serviceName: resourceName, serviceNamespace: resourceName, servicePort: port }, ['serviceName', 'servicePort']),
      static: object({ hosts: { type: 'array', minItems: 1, items: object({ addr: nonEmptyString, port }, ['addr', 'port']) } }, ['hosts']),
      useHttp2: boolean,
    }),
    ...exactlyOne('kube', 'static'),
  },
);

const typeMerge = object({ selectionSet: nonEmptyString, queryName: nonEmptyString, args: stringMap }, ['selectionSet', 'queryName']);

export const graphqlApi = resource(
  'graphql.gateway.example/v1beta1',
  'GraphQLApi',
  {
    ...object({
      executableSchema: object(
        {
          executor: object({ local: object({ enableIntrospection: boolean }) }),
          resolutions: mapOf(
            object(
              {
                grpcResolver: object(
                  {
                    requestTransform: object({ methodName: nonEmptyString, serviceName: nonEmptyString, outgoingMessageJson: stringMap }, ['methodName', 'serviceName']),
                    upstreamRef: resourceRef,
                  },
                  ['requestTransform', 'upstreamRef'],
                ),
              },
              ['grpcResolver'],
            ),
          ),
          schemaDefinition: nonEmptyString,
        },
        ['schemaDefinition'],
      ),
      stitchedSchema: object(
        {
          subschemas: {
            type: 'array',
            minItems: 1,
            items: object({ name: resourceName, namespace: resourceName, typeMerge: mapOf(typeMerge) }, ['name']),
          },
        },
        ['subschemas'],
      ),
    }),
    ...exactlyOne('executableSchema', 'stitchedSchema'),
  },
);

const servicePort = object(
  {
    name: string,
    port,
    targetPort: { type: ['integer', 'string'] },
    protocol: { enum: ['TCP', 'UDP', 'SCTP'] },
    nodePort: port,
    appProtocol: string,
  },
  ['port'],
);

export const service = resource(
  'v1',
  'Service',
  object({
    type: { enum: ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'] },
    selector: stringMap,
    ports: { type: 'array', items: servicePort },
    clusterIP: string,
    clusterIPs: { type: 'array', items: string },
    externalName: string,
    sessionAffinity: string,
    ipFamilies: { type: 'array', items: string },
    ipFamilyPolicy: string,
    internalTrafficPolicy: string,
    externalTrafficPolicy: string,
    publishNotReadyAddresses: boolean,
  }),
);

const secretBase = resource('v1', 'Secret', {}, false) as { properties: Record<string, Schema>; [k: string]: unknown };
export const secret: Schema = {
  ...secretBase,
  properties: {
    apiVersion: secretBase.properties.apiVersion,
    kind: secretBase.properties.kind,
    metadata: secretBase.properties.metadata,
    type: string,
    data: mapOf({ type: 'string', pattern: '^[A-Za-z0-9+/]*={0,2}$' }),
    stringData: stringMap,
    immutable: boolean,
  },
};

/** apiVersion -> kind -> schema */
export const SCHEMAS: Record<string, Record<string, Schema>> = {
  'gateway.gateway.example/v1': { VirtualService: virtualService },
  'enterprise.gateway.example/v1': { AuthConfig: authConfig },
  'gloo.gateway.example/v1': { Upstream: upstream },
  'graphql.gateway.example/v1beta1': { GraphQLApi: graphqlApi },
  v1: { Service: service, Secret: secret },
};

