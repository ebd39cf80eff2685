import type { LdapIR, PassThroughIR } from '../../ir/model.js';
import { compileLdap } from './ldap.js';
import { compilePassThrough } from './pass-through.js';

const ldap: LdapIR = {
  address: 'ldap://ldap:389',
  userDnTemplate: 'uid=%s,ou=people,dc=example,dc=org',
  allowedGroups: ['cn=admins,ou=groups,dc=example,dc=org'],
  searchFilter: '(uid=*)',
  membershipAttributeName: 'memberOf',
  pool: { initialSize: 2, maxSize: 5 },
};

test('ldap: disable_group_checking only when Gloo asks for it', () => {
  expect(compileLdap(ldap)).not.toHaveProperty('disable_group_checking');
  expect(compileLdap({ ...ldap, allowedGroups: [], disableGroupChecking: true })).toMatchObject({
    allowed_groups: [],
    disable_group_checking: true,
  });
});

test("passThroughAuth: the HTTP client's header timeout, pool and TLS; TLS on gRPC", () => {
  const tls = { caPem: 'CA', certPem: 'CRT', keyPem: 'KEY', minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3' } as const;
  const http: PassThroughIR = {
    failureModeAllow: false,
    http: {
      url: 'https://auth.example/check',
      responseHeaderTimeoutMs: 500,
      connectionPool: { maxConns: 8, idleTimeoutMs: 10_000 },
      tls: { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.3' },
    },
  };
  expect(compilePassThrough(http)).toEqual({
    http: {
      url: 'https://auth.example/check',
      response_header_timeout_ms: 500,
      connection_pool: { max_conns: 8, idle_timeout_ms: 10_000 },
      tls: { min_version: 'TLSv1.2', max_version: 'TLSv1.3' },
    },
  });
  expect(compilePassThrough({ failureModeAllow: false, grpc: { address: 'auth:9001', tls } })).toEqual({
    grpc: {
      address: 'auth:9001',
      tls: { ca_pem: 'CA', cert_pem: 'CRT', key_pem: 'KEY', min_version: 'TLSv1.3', max_version: 'TLSv1.3' },
    },
  });
  expect(compilePassThrough({ failureModeAllow: false, http: { url: 'http://auth.example/' } })).toEqual({
    http: { url: 'http://auth.example/' },
  });
});
