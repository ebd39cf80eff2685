import type { Origin } from '../../diagnostics.js';
import type { AuthConfigIR, LdapIR, Model, VirtualHostIR } from '../../ir/model.js';
import { checkMessage } from '../../verify/proto-json.js';
import { DEFAULT_OPTIONS, type Json } from '../output.js';
import { EXTAUTH_CLUSTER, EXTAUTH_FILTER_NAME, extauthConcern } from './extauth.js';
import { runConcern } from './run-concern.js';

const origin = (resource: string): Origin => ({ file: 'r.yaml', resource, lineOf: (path) => 1 + path.length });

function host(ns: string, name: string, configRef?: string): VirtualHostIR {
  return {
    name: `${ns}.${name}`,
    namespace: ns,
    origin: origin(`VirtualService ${ns}/${name}`),
    domains: [`${name}.example`],
    routes: [],
    ...(configRef ? { extauth: { configRef } } : {}),
  };
}

const ldap: LdapIR = {
  address: 'ldap://openldap:389',
  userDnTemplate: 'uid=%s,ou=people,dc=example,dc=org',
  allowedGroups: ['cn=developers,ou=groups,dc=example,dc=org', 'cn=admins,ou=groups,dc=example,dc=org'],
  searchFilter: '(uid=*)',
  membershipAttributeName: 'memberOf',
  pool: { initialSize: 2, maxSize: 5 },
};

function authConfig(name: string, l: LdapIR = ldap): AuthConfigIR {
  return { name, origin: origin(`AuthConfig ${name.replace('.', '/')}`), configs: [{ kind: 'ldap', ldap: l }] };
}

const model = (virtualHosts: VirtualHostIR[], authConfigs: AuthConfigIR[]): Model => ({
  virtualHosts,
  gateways: [],
  upstreams: [],
  authConfigs,
  graphqlApis: [],
});

/** Checks `json` (with its `@type`) against Envoy's proto. */
function issues(json: Json): string[] {
  const type = String(json['@type']).replace('type.googleapis.com/', '');
  const { '@type': _t, ...rest } = json;
  return checkMessage(type, rest).map((i) => `${i.path}: ${i.rule}: ${i.message}`);
}

describe('extauthConcern', () => {
  test('no virtual host uses extauth: no filter, no cluster, no per-host config; AuthConfigs still compiled', () => {
    const result = runConcern(
      extauthConcern,
      model([host('default', 'open')], [authConfig('default.ldap')]),
      DEFAULT_OPTIONS,
    );
    expect(result.httpFilter).toBeUndefined();
    expect(result.clusters).toEqual([]);
    expect(result.perVirtualHost.size).toBe(0);
    expect(result.authConfigs?.map((a) => a.name)).toEqual(['default.ldap']);
  });

  test('hosts without extauth drop a client-sent x-user-id; extauth hosts leave it to the sidecar', () => {
    const withNone = runConcern(extauthConcern, model([host('default', 'open')], []), DEFAULT_OPTIONS);
    expect([...(withNone.requestHeadersToRemove ?? [])]).toEqual([['default.open', ['x-user-id']]]);
    const mixed = runConcern(
      extauthConcern,
      model([host('default', 'api', 'default.ldap'), host('default', 'open')], [authConfig('default.ldap')]),
      DEFAULT_OPTIONS,
    );
    expect([...(mixed.requestHeadersToRemove ?? [])]).toEqual([['default.open', ['x-user-id']]]);
  });

  test('filter: gRPC to the extauth cluster, V3, fail closed, timeout, 503 on error, jwt_authn metadata forwarded; valid against Envoy protos', () => {
    const result = runConcern(
      extauthConcern,
      model([host('default', 'api', 'default.ldap')], [authConfig('default.ldap')]),
      DEFAULT_OPTIONS,
    );
    expect(result.httpFilter).toEqual({
      name: EXTAUTH_FILTER_NAME,
      typed_config: {
        '@type': 'type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz',
        grpc_service: { envoy_grpc: { cluster_name: 'extauth' }, timeout: '5s' },
        transport_api_version: 'V3',
        failure_mode_allow: false,
        status_on_error: { code: 'ServiceUnavailable' },
        metadata_context_namespaces: ['envoy.filters.http.jwt_authn'],
      },
    });
    expect(issues(result.httpFilter!.typed_config as Json)).toEqual([]);
    // The check is strict: a misspelt field would not pass.
    expect(issues({ ...(result.httpFilter!.typed_config as Json), failure_mode_alow: false })).not.toEqual([]);
  });

  test('per virtual host: config_ref where used, disabled elsewhere; valid ExtAuthzPerRoute', () => {
    const result = runConcern(
      extauthConcern,
      model(
        [host('default', 'api', 'default.ldap'), host('default', 'open'), host('team', 'admin', 'team.strict')],
        [authConfig('default.ldap'), authConfig('team.strict')],
      ),
    );
    const type = 'type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthzPerRoute';
    expect(Object.fromEntries(result.perVirtualHost)).toEqual({
      'default.api': { '@type': type, check_settings: { context_extensions: { config_ref: 'default.ldap' } } },
      'default.open': { '@type': type, disabled: true },
      'team.admin': { '@type': type, check_settings: { context_extensions: { config_ref: 'team.strict' } } },
    });
    for (const per of result.perVirtualHost.values()) expect(issues(per)).toEqual([]);
  });

  test('extauth cluster: HTTP/2 to the configured address, valid Cluster', () => {
    const options = { ...DEFAULT_OPTIONS, extauthAddress: { host: 'extauth.sluice-system.svc', port: 9083 } };
    const [cluster, ...rest] = runConcern(
      extauthConcern,
      model([host('default', 'api', 'default.ldap')], [authConfig('default.ldap')]),
      options,
    ).clusters;
    expect(rest).toEqual([]);
    expect(cluster).toMatchObject({
      name: EXTAUTH_CLUSTER,
      type: 'STRICT_DNS',
      load_assignment: {
        cluster_name: 'extauth',
        endpoints: [
          {
            lb_endpoints: [
              { endpoint: { address: { socket_address: { address: 'extauth.sluice-system.svc', port_value: 9083 } } } },
            ],
          },
        ],
      },
      typed_extension_protocol_options: {
        'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': {
          '@type': 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
          explicit_http_config: { http2_protocol_options: {} },
        },
      },
    });
    expect(checkMessage('envoy.config.cluster.v3.Cluster', cluster)).toEqual([]);
  });

  test('compiled AuthConfigs: every field, service account credentials resolved, valid sluice.extauth.v1.AuthConfig', () => {
    const sa = authConfig('team.sa', {
      ...ldap,
      address: 'ldaps://ldap.corp:636',
      searchFilter: '(objectClass=person)',
      membershipAttributeName: 'isMemberOf',
      pool: { initialSize: 1, maxSize: 10 },
      serviceAccount: { username: 'cn=reader,dc=example,dc=org', password: 's3cret' },
    });
    const result = runConcern(extauthConcern, model([], [authConfig('default.ldap'), sa]), DEFAULT_OPTIONS);
    expect(result.authConfigs).toEqual([
      {
        name: 'default.ldap',
        configs: [
          {
            ldap: {
              address: 'ldap://openldap:389',
              user_dn_template: 'uid=%s,ou=people,dc=example,dc=org',
              allowed_groups: ['cn=developers,ou=groups,dc=example,dc=org', 'cn=admins,ou=groups,dc=example,dc=org'],
              search_filter: '(uid=*)',
              membership_attribute_name: 'memberOf',
              pool: { initial_size: 2, max_size: 5 },
            },
          },
        ],
      },
      {
        name: 'team.sa',
        configs: [
          {
            ldap: {
              address: 'ldaps://ldap.corp:636',
              user_dn_template: 'uid=%s,ou=people,dc=example,dc=org',
              allowed_groups: ['cn=developers,ou=groups,dc=example,dc=org', 'cn=admins,ou=groups,dc=example,dc=org'],
              search_filter: '(objectClass=person)',
              membership_attribute_name: 'isMemberOf',
              service_account: { username: 'cn=reader,dc=example,dc=org', password: 's3cret' },
              pool: { initial_size: 1, max_size: 10 },
            },
          },
        ],
      },
    ]);
    for (const ac of result.authConfigs!) expect(checkMessage('sluice.extauth.v1.AuthConfig', ac)).toEqual([]);
  });
});
