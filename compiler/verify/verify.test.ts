import { emptyXdsSet, type Json, type XdsSet } from '../translate/output.js';
import {
  bootstrap,
  routeConfig,
  securedClusters,
  securedListener,
  securedRouteConfig,
  strictDnsCluster,
} from './fixtures.js';
import { verifyBootstrap, verifySet, VerifyMemo } from './verify.js';

const HCM_PATH = 'static_resources.listeners[0].filter_chains[0].filters[0].typed_config';

type Lists = {
  listeners: Json[];
  routes: Json[];
  clusters: Json[];
  authConfigs: Json[];
  graphqlApis: Json[];
  endpoints?: Json[];
};

/** The lists as an xDS set, each resource under its own name. */
function setOf(lists: Lists): XdsSet {
  const set = emptyXdsSet();
  for (const kind of ['listeners', 'routes', 'clusters', 'authConfigs', 'graphqlApis'] as const)
    for (const r of lists[kind]) set[kind].set(r.name as string, r);
  for (const e of lists.endpoints ?? []) set.endpoints.set(e.cluster_name as string, e);
  return set;
}

const verifyOutput = (lists: Lists) => verifySet(setOf(lists));

function output(): Lists {
  return {
    listeners: [securedListener()],
    routes: [securedRouteConfig()],
    clusters: securedClusters(),
    authConfigs: [
      {
        name: 'default.ldap',
        configs: [
          {
            ldap: {
              address: 'ldap://127.0.0.1:389',
              user_dn_template: 'uid=%s,ou=people,dc=example,dc=org',
              allowed_groups: ['cn=devs,ou=groups,dc=example,dc=org'],
            },
          },
        ],
      },
    ],
    graphqlApis: [
      {
        name: 'default.pets',
        executable: {
          schema_definition:
            'type Query { pet(id: ID!): Pet @resolve(name: "Query|pets.Pets.GetPet") } type Pet { id: ID! }',
          resolutions: {
            'Query|pets.Pets.GetPet': {
              grpc: {
                service_name: 'pets.Pets',
                method_name: 'GetPet',
                outgoing_message_json: { id: '{$args.id}' },
                target: {
                  cluster: 'default-pets-9000',
                  hosts: [{ address: 'pets.default.svc.cluster.local', port: 9000 }],
                },
              },
            },
          },
        },
      },
    ],
  };
}

function hcmOf(b: any): any {
  return b.static_resources.listeners[0].filter_chains[0].filters[0].typed_config;
}
function brokenBootstrap(edit: (b: any) => void): Json {
  const b = bootstrap();
  edit(b);
  return b;
}
function summary(list: { resource?: string; field?: string; message: string }[]): string[] {
  return list.map(
    (d) =>
      `${d.resource} | ${d.field ?? ''} | ${d.message.replace(/^internal compiler error: /, '').replace(/ \(([a-z_.]+)\);.*$/, ' [$1]')}`,
  );
}

describe('verifyBootstrap', () => {
  test('a realistic static bootstrap passes', () => {
    expect(verifyBootstrap(bootstrap())).toEqual([]);
  });

  test('a proto issue is reported as a compiler bug on its resource, with the full proto path', () => {
    const diags = verifyBootstrap(
      brokenBootstrap(
        (b) =>
          (b.static_resources.clusters[0].load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address.port_value = 70000),
      ),
    );
    expect(diags).toEqual([
      {
        stage: 'verify',
        resource: 'Cluster default-petstore-8080',
        field:
          'static_resources.clusters[0].load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address.port_value',
        message:
          'internal compiler error: must be at most 65535, got 70000 (uint32.lte); the generated Envoy configuration is invalid, this is a bug in sluice, please report it',
      },
    ]);
  });

  test('duplicate domains across virtual hosts of one route configuration, `*` and case included', () => {
    const diags = verifyBootstrap(
      brokenBootstrap((b) => {
        const vhosts = hcmOf(b).route_config.virtual_hosts;
        vhosts[1].domains = ['*', 'PetStore.example.com'];
        vhosts.push({ name: 'default.other', domains: ['*'], routes: [] });
      }),
    );
    expect(summary(diags)).toEqual([
      `Listener http-8080 | ${HCM_PATH}.route_config.virtual_hosts[1].domains[1] | domain "petstore.example.com" is already served by virtual host "default.petstore" of route configuration "http-8080" (Envoy rejects duplicate domains) [envoy.duplicate_domain]`,
      `Listener http-8080 | ${HCM_PATH}.route_config.virtual_hosts[2].domains[0] | domain "*" is already served by virtual host "default.catchall" of route configuration "http-8080" (Envoy rejects duplicate domains) [envoy.duplicate_domain]`,
    ]);
  });

  test('duplicate virtual host names in one route configuration', () => {
    const diags = verifyBootstrap(
      brokenBootstrap((b) => (hcmOf(b).route_config.virtual_hosts[1].name = 'default.petstore')),
    );
    expect(summary(diags)).toEqual([
      `Listener http-8080 | ${HCM_PATH}.route_config.virtual_hosts[1].name | virtual host name "default.petstore" is used twice in route configuration "http-8080" [envoy.duplicate_virtual_host]`,
    ]);
  });

  test('routes to undefined clusters (plain and weighted)', () => {
    const diags = verifyBootstrap(
      brokenBootstrap((b) => {
        const routes = hcmOf(b).route_config.virtual_hosts[0].routes;
        routes[0].route.cluster = 'default-petstore-8081';
        routes[1].route.weighted_clusters.clusters.push({ name: 'default-gone-80', weight: 1 });
      }),
    );
    expect(summary(diags)).toEqual([
      `Listener http-8080 | ${HCM_PATH}.route_config.virtual_hosts[0].routes[0].route.cluster | cluster "default-petstore-8081" is not defined [envoy.unknown_cluster]`,
      `Listener http-8080 | ${HCM_PATH}.route_config.virtual_hosts[0].routes[1].route.weighted_clusters.clusters[1].name | cluster "default-gone-80" is not defined [envoy.unknown_cluster]`,
    ]);
  });

  test('duplicate listener names, listener addresses and cluster names', () => {
    const diags = verifyBootstrap(
      brokenBootstrap((b) => {
        b.static_resources.listeners.push(structuredClone(b.static_resources.listeners[0]));
        b.static_resources.clusters.push(strictDnsCluster());
      }),
    );
    expect(summary(diags)).toEqual([
      'Listener http-8080 | static_resources.listeners[1].name | listener name "http-8080" is used twice [envoy.duplicate_name]',
      'Listener http-8080 | static_resources.listeners[1].address | listener address TCP 0.0.0.0:8080 is also used by listener "http-8080" [envoy.duplicate_address]',
      'Cluster default-petstore-8080 | static_resources.clusters[1].name | cluster name "default-petstore-8080" is used twice [envoy.duplicate_name]',
    ]);
  });

  test('an HTTP filter chain that does not end with the router, or has the router in the middle', () => {
    const jwt = {
      name: 'envoy.filters.http.jwt_authn',
      typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication' },
    };
    expect(summary(verifyBootstrap(brokenBootstrap((b) => hcmOf(b).http_filters.push(jwt))))).toEqual([
      `Listener http-8080 | ${HCM_PATH}.http_filters[0] | the router filter (a terminal filter) must be the last HTTP filter, but 1 follow it [envoy.http_filters]`,
      `Listener http-8080 | ${HCM_PATH}.http_filters[1] | the HTTP filter chain ends with "envoy.filters.http.jwt_authn"; it must end with the router filter [envoy.http_filters]`,
    ]);
    expect(summary(verifyBootstrap(brokenBootstrap((b) => (hcmOf(b).http_filters = []))))).toEqual([
      `Listener http-8080 | ${HCM_PATH}.http_filters | the HTTP filter chain is empty; it must end with the router filter [envoy.http_filters]`,
    ]);
  });

  test('listener, admin and STATIC cluster addresses must be IP addresses', () => {
    const diags = verifyBootstrap(
      brokenBootstrap((b) => {
        b.admin.address.socket_address.address = 'localhost';
        b.static_resources.listeners[0].address.socket_address.address = 'gateway';
        b.static_resources.clusters[0].type = 'STATIC';
      }),
    );
    expect(summary(diags)).toEqual([
      'Listener http-8080 | static_resources.listeners[0].address.socket_address.address | "gateway" is not an IP address; a listener needs one [envoy.ip_address]',
      'Cluster default-petstore-8080 | static_resources.clusters[0].load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address.address | "petstore.default.svc.cluster.local" is not an IP address; a STATIC cluster needs one [envoy.ip_address]',
      'Bootstrap | admin.address.socket_address.address | "localhost" is not an IP address; the admin interface needs one [envoy.ip_address]',
    ]);
  });

  test('an unknown top-level field belongs to the bootstrap itself', () => {
    expect(summary(verifyBootstrap({ ...bootstrap(), static_resource: {} }))).toEqual([
      'Bootstrap | static_resource | unknown field "static_resource" in envoy.config.bootstrap.v3.Bootstrap [unknown_field]',
    ]);
  });
});

describe('verifySet', () => {
  test('realistic output with jwt_authn, rbac, ext_authz, RDS and both sidecar resources passes', () => {
    expect(verifyOutput(output())).toEqual([]);
  });

  test('each resource is checked by its own type, with paths inside the resource', () => {
    const out = output();
    (out.clusters[1] as any).connect_timeout = '-1s';
    (out.authConfigs[0] as any).configs[0].ldap.user_dn = 'x';
    (out.graphqlApis[0] as any).stitched = { subschemas: [] };
    expect(summary(verifyOutput(out))).toEqual([
      'Cluster default-petstore-8080 | connect_timeout | must be greater than 0s, got -1s [duration.gt]',
      'AuthConfig default.ldap | configs[0].ldap.user_dn | unknown field "user_dn" in sluice.extauth.v1.LdapConfig [unknown_field]',
      'GraphQLApi default.pets |  | only one of executable, stitched may be set (oneof schema) [oneof]',
    ]);
  });

  test('walks every nested Any: HCM filters, typed_per_filter_config of virtual hosts and of routes', () => {
    const out = output();
    const hcm = (out.listeners[0] as any).filter_chains[0].filters[0].typed_config;
    hcm.http_filters[2].typed_config.grpc_service.envoy_grpc.cluster_name = 'ext-authz';
    const vh = (out.routes[0] as any).virtual_hosts[0];
    vh.typed_per_filter_config['envoy.filters.http.rbac'].rbac.rules.policies.readers.principals = [];
    vh.routes[0].typed_per_filter_config = {
      'envoy.filters.http.jwt_authn': {
        '@type': 'type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.PerRouteConfig',
        requirement_name: '',
      },
    };
    expect(summary(verifyOutput(out))).toEqual([
      'RouteConfiguration http-8080 | virtual_hosts[0].routes[0].typed_per_filter_config["envoy.filters.http.jwt_authn"].requirement_name | must not be empty [string.min_len]',
      'RouteConfiguration http-8080 | virtual_hosts[0].typed_per_filter_config["envoy.filters.http.rbac"].rbac.rules.policies.readers.principals | needs at least 1 item, got 0 [repeated.min_items]',
      'Listener http-8080 | filter_chains[0].filters[0].typed_config.http_filters[2].typed_config.grpc_service.envoy_grpc.cluster_name | cluster "ext-authz" is not defined [envoy.unknown_cluster]',
    ]);
  });

  test('load-time checks on a top-level RouteConfiguration use paths inside it', () => {
    const out = output();
    const vhosts = (out.routes[0] as any).virtual_hosts;
    vhosts[1].domains = ['PETSTORE.example.com'];
    vhosts[1].name = 'default.petstore';
    vhosts[1].routes = [{ match: { prefix: '/' }, route: { cluster: 'nowhere' } }];
    expect(summary(verifyOutput(out))).toEqual([
      'RouteConfiguration http-8080 | virtual_hosts[1].name | virtual host name "default.petstore" is used twice in route configuration "http-8080" [envoy.duplicate_virtual_host]',
      'RouteConfiguration http-8080 | virtual_hosts[1].domains[0] | domain "petstore.example.com" is already served by virtual host "default.petstore" of route configuration "http-8080" (Envoy rejects duplicate domains) [envoy.duplicate_domain]',
      'RouteConfiguration http-8080 | virtual_hosts[1].routes[0].route.cluster | cluster "nowhere" is not defined [envoy.unknown_cluster]',
    ]);
  });

  test('RDS names a route configuration the output does not define; a resource served under another name', () => {
    const out = output();
    const hcm = (out.listeners[0] as any).filter_chains[0].filters[0].typed_config;
    hcm.rds.route_config_name = 'http-9090';
    const set = setOf(out);
    set.routes.set('http-7070', routeConfig('http-8080'));
    expect(summary(verifySet(set))).toEqual([
      'RouteConfiguration http-7070 | name | the resource is named "http-8080" but served as "http-7070" [envoy.name_mismatch]',
      'Listener http-8080 | filter_chains[0].filters[0].typed_config.rds.route_config_name | RDS route_config_name "http-9090" names no RouteConfiguration of the output [envoy.unknown_route_config]',
    ]);
  });

  test('a transport socket names an SDS secret the output does not hold (a static bootstrap: no static secret of that name)', () => {
    const out = output();
    const tls = {
      name: 'envoy.transport_sockets.tls',
      typed_config: {
        '@type': 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext',
        common_tls_context: {
          tls_certificate_sds_secret_configs: [
            { name: 'shop/tls', sds_config: { ads: {}, resource_api_version: 'V3' } },
          ],
        },
      },
    };
    (out.listeners[0] as any).filter_chains[0].transport_socket = tls;
    const set = setOf(out);
    expect(summary(verifySet(set))).toEqual([
      'Listener http-8080 | filter_chains[0].transport_socket.typed_config.common_tls_context.tls_certificate_sds_secret_configs[0].name | SDS secret "shop/tls" is not in the output [envoy.unknown_secret]',
    ]);
    set.secrets.set('shop/tls', {
      name: 'shop/tls',
      tls_certificate: { certificate_chain: { inline_string: 'x' }, private_key: { inline_string: 'y' } },
    });
    expect(verifySet(set)).toEqual([]);
    const b = bootstrap();
    (b as any).static_resources.listeners[0].filter_chains[0].transport_socket = {
      ...tls,
      typed_config: {
        ...tls.typed_config,
        common_tls_context: { tls_certificate_sds_secret_configs: [{ name: 'shop/tls' }] },
      },
    };
    expect(summary(verifyBootstrap(b))).toEqual([
      `Listener http-8080 | static_resources.listeners[0].filter_chains[0].transport_socket.typed_config.common_tls_context.tls_certificate_sds_secret_configs[0].name | SDS secret "shop/tls" is not in the output [envoy.unknown_secret]`,
    ]);
  });

  test('an EDS cluster without its load assignment; an EDS endpoint that is no IP address', () => {
    const out = output();
    out.clusters.push({
      name: 'eds',
      type: 'EDS',
      connect_timeout: '5s',
      eds_cluster_config: { eds_config: { ads: {}, resource_api_version: 'V3' } },
    });
    out.clusters.push({
      name: 'eds-dns',
      type: 'EDS',
      connect_timeout: '5s',
      eds_cluster_config: { eds_config: { ads: {}, resource_api_version: 'V3' } },
    });
    out.endpoints = [
      {
        cluster_name: 'eds-dns',
        endpoints: [
          { lb_endpoints: [{ endpoint: { address: { socket_address: { address: 'svc.example', port_value: 80 } } } }] },
        ],
      },
    ];
    expect(summary(verifyOutput(out))).toEqual([
      'ClusterLoadAssignment eds-dns | endpoints[0].lb_endpoints[0].endpoint.address.socket_address.address | "svc.example" is not an IP address; an EDS endpoint needs one [envoy.ip_address]',
      'Cluster eds | eds_cluster_config | EDS cluster "eds" has no ClusterLoadAssignment in the set [envoy.missing_endpoints]',
    ]);
  });

  test('a kept message is not checked again; an edited copy is', () => {
    const memo = new VerifyMemo();
    const set = setOf(output());
    expect(verifySet(set, memo)).toEqual([]);
    // Broken in place: the memo still holds the facts of the object as first checked.
    (set.clusters.values().next().value as Json).connect_timeout = '-1s';
    expect(verifySet(set, memo)).toEqual([]);
    const [name, cluster] = set.clusters.entries().next().value as [string, Json];
    set.clusters.set(name, { ...cluster });
    expect(summary(verifySet(set, memo))).toEqual([
      `Cluster ${name} | connect_timeout | must be greater than 0s, got -1s [duration.gt]`,
    ]);
  });

  test('a kept message naming a cluster that is gone: the error is at its reference, or at the message if it was changed in place since', () => {
    const memo = new VerifyMemo();
    const set = setOf(output());
    expect(verifySet(set, memo)).toEqual([]);
    const vhost = ((set.routes.values().next().value as Json).virtual_hosts as Json[])[0]!;
    const route = (vhost.routes as Json[])[0]!;
    const clusterName = (route.route as Json).cluster as string;
    expect(set.clusters.delete(clusterName)).toBe(true);
    const at = summary(verifySet(set, memo)).filter((line) => line.includes('is not defined'));
    expect(at[0]).toContain(`virtual_hosts[0].routes[0].route.cluster | cluster "${clusterName}" is not defined`);
    // Changed in place (translate never does this): the kept names still tell, the path is the message's.
    vhost.routes = [{ match: { prefix: '/' }, route: { cluster: 'elsewhere' } }];
    const fallback = summary(verifySet(set, memo)).filter((line) =>
      line.includes(`cluster "${clusterName}" is not defined`),
    );
    expect(fallback[0]).toContain(
      `RouteConfiguration http-8080 | virtual_hosts[0] | cluster "${clusterName}" is not defined`,
    );
  });

  test('a per-route jwt_authn requirement_name that no requirement_map defines', () => {
    const out = output();
    (out.routes[0] as any).virtual_hosts[0].typed_per_filter_config['envoy.filters.http.jwt_authn'].requirement_name =
      'default.petstor';
    expect(summary(verifyOutput(out))).toEqual([
      'RouteConfiguration http-8080 | virtual_hosts[0].typed_per_filter_config["envoy.filters.http.jwt_authn"].requirement_name | requirement_name "default.petstor" is not in the requirement_map of any jwt_authn filter [envoy.unknown_jwt_requirement]',
    ]);
  });

  test('JWKS fetched through a cluster that does not exist', () => {
    const out = output();
    out.clusters = out.clusters.filter((c: Json) => c.name !== 'default-jwks-443');
    expect(summary(verifyOutput(out))).toEqual([
      'Listener http-8080 | filter_chains[0].filters[0].typed_config.http_filters[0].typed_config.providers["default.petstore.okta"].remote_jwks.http_uri.cluster | cluster "default-jwks-443" is not defined [envoy.unknown_cluster]',
    ]);
  });
});
