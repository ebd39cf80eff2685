import { generateKeyPairSync } from 'node:crypto';
import type { Origin } from '../../diagnostics.js';
import type { JwtProviderIR, Model, VirtualHostIR } from '../../ir/model.js';
import { DEFAULT_OPTIONS, type Json } from '../output.js';
import { pemToJwks } from '../../resolve/pem.js';
import { JWT_FILTER_NAME, jwtConcern } from './jwt.js';
import { runConcern, type ConcernPart } from './run-concern.js';

const origin = (resource: string): Origin => ({ file: 'vs.yaml', resource, lineOf: (path) => 10 + path.length });

const rsaPem = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({
  type: 'spki',
  format: 'pem',
}) as string;
const converted = pemToJwks(rsaPem);
const rsaKeys = JSON.stringify({ keys: converted.ok ? converted.keys : [] });

function providerIR(
  ns: string,
  vs: string,
  name: string,
  jwks: JwtProviderIR['jwks'],
  issuer = `https://${name}.example`,
): JwtProviderIR {
  return {
    name: `${ns}.${vs}.${name}`,
    payloadKey: name,
    issuer,
    jwks,
    origin: origin(`VirtualService ${ns}/${vs}`),
    path: ['spec', 'virtualHost', 'options', 'jwt', 'providers', name],
  };
}

function host(ns: string, name: string, providers?: JwtProviderIR[]): VirtualHostIR {
  return {
    name: `${ns}.${name}`,
    namespace: ns,
    origin: origin(`VirtualService ${ns}/${name}`),
    domains: [`${name}.example`],
    routes: [],
    ...(providers ? { jwt: { providers } } : {}),
  };
}

const model = (virtualHosts: VirtualHostIR[]): Model => ({
  virtualHosts,
  gateways: [],
  upstreams: [],
  authConfigs: [],
  graphqlApis: [],
});

const typed = (result: ConcernPart) =>
  result.httpFilter!.typed_config as Json as { providers: Record<string, Json>; requirement_map: Record<string, Json> };

describe('jwtConcern', () => {
  test('no virtual host with jwt: no filter, no per-host config', () => {
    const result = runConcern(jwtConcern, model([host('default', 'open')]));
    expect(result.httpFilter).toBeUndefined();
    expect(result.perVirtualHost.size).toBe(0);
  });

  test("one local provider: inline JWKS, token locations, payload in metadata under the provider's name, provider_name requirement", () => {
    const p = providerIR('default', 'api', 'corp', { kind: 'local', keys: rsaKeys });
    const result = runConcern(jwtConcern, model([host('default', 'api', [p])]));
    expect(result.httpFilter!.name).toBe(JWT_FILTER_NAME);
    const config = typed(result);
    expect(config).toMatchObject({
      '@type': 'type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication',
    });
    expect(config).not.toHaveProperty('rules');
    const provider = config.providers['default.api.corp'] as Json & { local_jwks: { inline_string: string } };
    expect(provider).toMatchObject({
      issuer: 'https://corp.example',
      from_headers: [{ name: 'Authorization', value_prefix: 'Bearer ' }],
      from_params: ['access_token'],
      payload_in_metadata: 'corp',
    });
    const jwks = JSON.parse(provider.local_jwks.inline_string) as { keys: Json[] };
    expect(jwks.keys).toEqual([
      expect.objectContaining({ kty: 'RSA', alg: 'RS256', use: 'sig', e: 'AQAB', kid: expect.any(String) }),
    ]);
    expect(config.requirement_map).toEqual({ 'default.api': { provider_name: 'default.api.corp' } });
    expect(result.perVirtualHost.get('default.api')).toEqual({
      '@type': 'type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.PerRouteConfig',
      requirement_name: 'default.api',
    });
  });

  test('remote provider: http_uri through the resolved cluster, timeout, cache duration, async fetch', () => {
    const p = providerIR('team', 'api', 'idp', {
      kind: 'remote',
      url: 'http://jwks.example/keys.json',
      cluster: 'team-jwks-8080',
    });
    const config = typed(runConcern(jwtConcern, model([host('team', 'api', [p])])));
    expect(config.providers['team.api.idp']).toMatchObject({
      remote_jwks: {
        http_uri: { uri: 'http://jwks.example/keys.json', cluster: 'team-jwks-8080', timeout: '5s' },
        cache_duration: '300s',
        async_fetch: {},
      },
    });
    expect(config.providers['team.api.idp']).not.toHaveProperty('local_jwks');
  });

  test('two providers on one host: requires_any over both; other hosts are disabled', () => {
    const a = providerIR('default', 'api', 'b-second', { kind: 'local', keys: rsaKeys });
    const b = providerIR('default', 'api', 'a-first', {
      kind: 'remote',
      url: 'https://idp.example/jwks',
      cluster: 'idp',
    });
    const result = runConcern(jwtConcern, model([host('default', 'api', [a, b]), host('default', 'open')]));
    const config = typed(result);
    expect(Object.keys(config.providers)).toEqual(['default.api.a-first', 'default.api.b-second']);
    expect(config.requirement_map['default.api']).toEqual({
      requires_any: {
        requirements: [{ provider_name: 'default.api.a-first' }, { provider_name: 'default.api.b-second' }],
      },
    });
    expect(config.requirement_map).not.toHaveProperty('default.open');
    expect(result.perVirtualHost.get('default.open')).toEqual({
      '@type': 'type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.PerRouteConfig',
      disabled: true,
    });
  });

  test('providers of several hosts share the one filter, each host its own requirement', () => {
    const a = providerIR('a', 'one', 'p', { kind: 'local', keys: rsaKeys });
    const b = providerIR('b', 'two', 'p', { kind: 'local', keys: rsaKeys });
    const config = typed(runConcern(jwtConcern, model([host('a', 'one', [a]), host('b', 'two', [b])])));
    expect(Object.keys(config.providers)).toEqual(['a.one.p', 'b.two.p']);
    expect(config.requirement_map).toEqual({
      'a.one': { provider_name: 'a.one.p' },
      'b.two': { provider_name: 'b.two.p' },
    });
  });

  test("Gloo's validationPolicy: allow_missing or allow_missing_or_failed joins the providers in requires_any", () => {
    const withPolicy = (name: string, allowMissing: 'ALLOW_MISSING' | 'ALLOW_MISSING_OR_FAILED', count: number) => {
      const providers = ['p', 'q']
        .slice(0, count)
        .map((p) => providerIR('default', name, p, { kind: 'local', keys: rsaKeys }));
      return { ...host('default', name), jwt: { providers, allowMissing } };
    };
    const config = typed(
      runConcern(
        jwtConcern,
        model([withPolicy('one', 'ALLOW_MISSING', 1), withPolicy('two', 'ALLOW_MISSING_OR_FAILED', 2)]),
      ),
    );
    expect(config.requirement_map).toEqual({
      'default.one': { requires_any: { requirements: [{ provider_name: 'default.one.p' }, { allow_missing: {} }] } },
      'default.two': {
        requires_any: {
          requirements: [
            { provider_name: 'default.two.p' },
            { provider_name: 'default.two.q' },
            { allow_missing_or_failed: {} },
          ],
        },
      },
    });
  });
});
