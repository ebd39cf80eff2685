import protobuf from 'protobufjs';
import fs from 'node:fs';
import path from 'node:path';
import { INCLUDE_DIRS, loadRoot, loadStats, lookupType } from '../../contract/envoy.js';
import type { Json } from '../translate/output.js';
import { decodeMessage, encodeMessage, toAny } from '../../contract/codec.js';
import { checkMessage } from './proto-json.js';
import { bootstrap, securedHcm, securedRouteConfig, strictDnsCluster } from './fixtures.js';

const BOOTSTRAP = 'envoy.config.bootstrap.v3.Bootstrap';
const ROUTE_CONFIG = 'envoy.config.route.v3.RouteConfiguration';
const CLUSTER = 'envoy.config.cluster.v3.Cluster';
const HCM_PATH = 'static_resources.listeners[0].filter_chains[0].filters[0].typed_config';

/** The bootstrap fixture after `edit`. */
function broken(edit: (b: any) => void): Json {
  const b = bootstrap();
  edit(b);
  return b;
}
function hcmOf(b: any): any {
  return b.static_resources.listeners[0].filter_chains[0].filters[0].typed_config;
}
function rules(issues: { rule: string; path: string }[]): string[] {
  return issues.map((i) => `${i.rule} @ ${i.path}`);
}

describe('contract/envoy.ts', () => {
  test('loads Envoy config, extensions, discovery/auth services, xds/udpa types and the sidecar protos', () => {
    for (const name of [
      'envoy.config.bootstrap.v3.Bootstrap',
      'envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication',
      'envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext',
      'envoy.service.discovery.v3.DiscoveryResponse',
      'envoy.service.auth.v3.CheckRequest',
      'xds.type.v3.TypedStruct',
      'sluice.extauth.v1.AuthConfig',
      'sluice.graphql.v1.GraphQLApi',
    ]) {
      expect(lookupType(name).fullName).toBe(`.${name}`);
    }
    expect(() => lookupType('envoy.config.nope.v3.Nothing')).toThrow(/no message type/);
    expect(loadRoot()).toBe(loadRoot());
  });

  test('leaves out only the Envoy files whose imports the npm package does not ship', () => {
    const { skipped, loadMs } = loadStats();
    expect(loadMs).toBeGreaterThan(0);
    const skippedSet = new Set(skipped);
    for (const file of skipped) {
      const source = fs.readFileSync(path.join(INCLUDE_DIRS[0], file), 'utf8');
      const imports = [...source.matchAll(/^import (?:public )?"([^"]+)"/gm)].map((m) => m[1]);
      const thirdParty = imports.filter(
        (i) => /^(opencensus|opentelemetry|io\/prometheus)\//.test(i) || skippedSet.has(i),
      );
      expect({ file, thirdParty: thirdParty.length > 0 }).toEqual({ file, thirdParty: true });
    }
  });

  test('keeps protoc-gen-validate options on fields', () => {
    const port = lookupType('envoy.config.core.v3.SocketAddress').fields.port_value;
    expect(port.parsedOptions).toEqual([{ '(validate.rules)': { uint32: { lte: 65535 } } }]);
    expect(port.resolvedType).toBeNull();
    expect(lookupType('envoy.config.route.v3.Route').oneofs.action.options).toEqual({ '(validate.required)': true });
    expect(loadRoot().lookup('envoy.config.cluster.v3.Cluster.DiscoveryType')).toBeInstanceOf(protobuf.Enum);
  });
});

describe('checkMessage: valid messages', () => {
  test('a realistic static bootstrap has no issues', () => {
    expect(checkMessage(BOOTSTRAP, bootstrap())).toEqual([]);
  });

  test('a realistic jwt_authn/rbac/ext_authz HCM and its per-virtual-host configs have no issues', () => {
    expect(checkMessage('google.protobuf.Any', securedHcm())).toEqual([]);
    expect(checkMessage(ROUTE_CONFIG, securedRouteConfig())).toEqual([]);
  });

  test('accepts the lowerCamel JSON names, int64 as number or string, base64 bytes, Struct and wrappers', () => {
    const cluster = strictDnsCluster();
    cluster.connectTimeout = cluster.connect_timeout;
    delete cluster.connect_timeout;
    cluster.per_connection_buffer_limit_bytes = 32768; // UInt32Value as a plain number
    cluster.metadata = {
      filter_metadata: { sluice: { owner: 'default', n: 1, tags: ['a', null], nested: { ok: true } } },
    };
    expect(checkMessage(CLUSTER, cluster)).toEqual([]);
    const budget = { budget_percent: { value: 20.5 }, min_retry_concurrency: 3 };
    expect(checkMessage('envoy.config.cluster.v3.CircuitBreakers.Thresholds.RetryBudget', budget)).toEqual([]);
    const prefix = { prefix: '/', headers: [{ name: 'x-id', string_match: { exact: 'a' } }] };
    expect(checkMessage('envoy.config.route.v3.RouteMatch', prefix)).toEqual([]);
    // int64 as a string and as a number; bytes as base64
    expect(checkMessage('envoy.type.v3.Int64Range', { start: '-5', end: 10 })).toEqual([]);
    expect(checkMessage('envoy.config.core.v3.DataSource', { inline_bytes: 'aGVsbG8=' })).toEqual([]);
    // …but not both spellings of one field
    expect(rules(checkMessage(CLUSTER, { ...strictDnsCluster(), connectTimeout: '1s' }))).toEqual([
      'duplicate_field @ connectTimeout',
    ]);
  });

  test('an Any of a well-known type carries its JSON form under "value"', () => {
    expect(
      checkMessage('google.protobuf.Any', { '@type': 'type.googleapis.com/google.protobuf.Duration', value: '1.5s' }),
    ).toEqual([]);
    expect(
      rules(checkMessage('google.protobuf.Any', { '@type': 'type.googleapis.com/google.protobuf.Duration', value: 5 })),
    ).toEqual(['json_type @ value']);
  });
});

describe('checkMessage: each rule class is reported at its path', () => {
  test('unknown field', () => {
    const issues = checkMessage(
      BOOTSTRAP,
      broken((b) => (b.static_resources.clusters[0].load_assignment.endpoints[0].lb_endpoint = [])),
    );
    expect(issues).toEqual([
      {
        path: 'static_resources.clusters[0].load_assignment.endpoints[0].lb_endpoint',
        rule: 'unknown_field',
        message: 'unknown field "lb_endpoint" in envoy.config.endpoint.v3.LocalityLbEndpoints',
      },
    ]);
  });

  test('unknown field inside a typed_config Any and inside typed_per_filter_config', () => {
    const issues = checkMessage(
      BOOTSTRAP,
      broken((b) => {
        hcmOf(b).http_filters[0].typed_config.dynamic_stat = true;
        hcmOf(b).route_config.virtual_hosts[0].typed_per_filter_config = {
          'envoy.filters.http.ext_authz': {
            '@type': 'type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthzPerRoute',
            disable: true,
          },
        };
      }),
    );
    expect(rules(issues)).toEqual([
      `unknown_field @ ${HCM_PATH}.route_config.virtual_hosts[0].typed_per_filter_config["envoy.filters.http.ext_authz"].disable`,
      // ExtAuthzPerRoute's oneof `override` is required
      `oneof.required @ ${HCM_PATH}.route_config.virtual_hosts[0].typed_per_filter_config["envoy.filters.http.ext_authz"]`,
      `unknown_field @ ${HCM_PATH}.http_filters[0].typed_config.dynamic_stat`,
    ]);
  });

  test('wrong JSON types', () => {
    const issues = checkMessage(
      BOOTSTRAP,
      broken((b) => {
        b.admin.address.socket_address.port_value = '19000x';
        b.static_resources.clusters[0].connect_timeout = 5;
        b.static_resources.listeners = { name: 'x' };
        b.node.id = 7;
      }),
    );
    expect(rules(issues)).toEqual([
      'json_type @ node.id',
      'json_type @ admin.address.socket_address.port_value',
      'json_type @ static_resources.listeners',
      'json_type @ static_resources.clusters[0].connect_timeout',
    ]);
    expect(issues[0].message).toBe('expected a string, got number 7');
  });

  test('bad enum name', () => {
    const issues = checkMessage(CLUSTER, { ...strictDnsCluster(), type: 'STRICT_DSN' });
    expect(rules(issues)).toEqual(['enum @ type']);
    expect(issues[0].message).toMatch(
      /unknown envoy.config.cluster.v3.Cluster.DiscoveryType value "STRICT_DSN"; one of STATIC, STRICT_DNS/,
    );
  });

  test('enum defined_only on a number', () => {
    expect(rules(checkMessage(CLUSTER, { ...strictDnsCluster(), type: 42 }))).toEqual(['enum.defined_only @ type']);
  });

  test('unresolvable @type', () => {
    const issues = checkMessage(
      BOOTSTRAP,
      broken(
        (b) =>
          (hcmOf(b).http_filters[0].typed_config['@type'] =
            'type.googleapis.com/envoy.extensions.filters.http.routr.v3.Router'),
      ),
    );
    expect(issues).toEqual([
      {
        path: `${HCM_PATH}.http_filters[0].typed_config["@type"]`,
        rule: 'any.type_url',
        message: `"@type" type.googleapis.com/envoy.extensions.filters.http.routr.v3.Router names no message type in Envoy's API protos`,
      },
    ]);
  });

  test('missing required message', () => {
    const issues = checkMessage(
      BOOTSTRAP,
      broken((b) => delete hcmOf(b).route_config.virtual_hosts[0].routes[1].match),
    );
    expect(issues).toEqual([
      {
        path: `${HCM_PATH}.route_config.virtual_hosts[0].routes[1].match`,
        rule: 'message.required',
        message: 'match is required',
      },
    ]);
  });

  test('missing required duration', () => {
    const uri = { uri: 'https://keys.example.com/jwks.json', cluster: 'jwks' };
    expect(checkMessage('envoy.config.core.v3.HttpUri', uri)).toEqual([
      { path: 'timeout', rule: 'duration.required', message: 'timeout is required' },
    ]);
  });

  test('string too short, also when the field is absent (PGV checks the default)', () => {
    const issues = checkMessage(
      BOOTSTRAP,
      broken((b) => {
        hcmOf(b).route_config.virtual_hosts[1].name = '';
        delete hcmOf(b).stat_prefix;
      }),
    );
    expect(rules(issues)).toEqual([
      `string.min_len @ ${HCM_PATH}.route_config.virtual_hosts[1].name`,
      `string.min_len @ ${HCM_PATH}.stat_prefix`,
    ]);
  });

  test('string well_known_regex, pattern and in', () => {
    // HeaderMatcher.name is HTTP_HEADER_NAME with strict: false: only NUL, CR and LF are refused.
    const header = { name: 'bad\nheader', string_match: { exact: 'x' } };
    expect(rules(checkMessage('envoy.config.route.v3.HeaderMatcher', header))).toEqual([
      'string.well_known_regex @ name',
    ]);
    const value = { header: { key: 'x-a', value: 'line\nbreak' } };
    expect(rules(checkMessage('envoy.config.core.v3.HeaderValueOption', value))).toEqual([
      'string.well_known_regex @ header.value',
    ]);
    const prefix = { path_separated_prefix: '/api/' };
    expect(rules(checkMessage('envoy.config.route.v3.RouteMatch', prefix))).toEqual([
      'string.pattern @ path_separated_prefix',
    ]);
    expect(checkMessage('envoy.config.route.v3.RouteMatch', { path_separated_prefix: '/api' })).toEqual([]);
    const scheme = { scheme_to_overwrite: 'ftp' };
    expect(checkMessage('envoy.config.core.v3.SchemeHeaderTransformation', scheme)).toEqual([
      { path: 'scheme_to_overwrite', rule: 'string.in', message: 'must be one of "http", "https", got "ftp"' },
    ]);
  });

  test('repeated unique', () => {
    const policy = { response_headers_to_copy: ['x-a', 'x-b', 'x-a'] };
    expect(rules(checkMessage('envoy.config.route.v3.InternalRedirectPolicy', policy))).toEqual([
      'repeated.unique @ response_headers_to_copy[2]',
    ]);
  });

  test('repeated min_items, absent or empty', () => {
    const issues = checkMessage(
      BOOTSTRAP,
      broken((b) => {
        hcmOf(b).route_config.virtual_hosts[0].domains = [];
        delete hcmOf(b).route_config.virtual_hosts[1].domains;
      }),
    );
    expect(rules(issues)).toEqual([
      `repeated.min_items @ ${HCM_PATH}.route_config.virtual_hosts[0].domains`,
      `repeated.min_items @ ${HCM_PATH}.route_config.virtual_hosts[1].domains`,
    ]);
    expect(issues[0].message).toBe('needs at least 1 item, got 0');
  });

  test('repeated items rules apply to each item', () => {
    const issues = checkMessage(ROUTE_CONFIG, {
      ...securedRouteConfig(),
      request_headers_to_remove: ['ok', 'not\rok'],
    });
    expect(rules(issues)).toEqual(['string.well_known_regex @ request_headers_to_remove[1]']);
  });

  test('duration out of range and malformed', () => {
    const issues = checkMessage(
      BOOTSTRAP,
      broken((b) => {
        b.static_resources.clusters[0].connect_timeout = '0s';
        hcmOf(b).route_config.virtual_hosts[0].routes[0].route.timeout = '15';
      }),
    );
    expect(rules(issues)).toEqual([
      `duration @ ${HCM_PATH}.route_config.virtual_hosts[0].routes[0].route.timeout`,
      'duration.gt @ static_resources.clusters[0].connect_timeout',
    ]);
    expect(issues[1].message).toBe('must be greater than 0s, got 0s');
    const uri = { uri: 'https://k/j', cluster: 'c', timeout: '4294967296s' };
    expect(rules(checkMessage('envoy.config.core.v3.HttpUri', uri))).toEqual(['duration.lt @ timeout']);
  });

  test('oneof with two members, and a required oneof left empty', () => {
    const issues = checkMessage(
      BOOTSTRAP,
      broken((b) => {
        hcmOf(b).route_config.virtual_hosts[0].routes[0].direct_response = { status: 200 };
        delete hcmOf(b).route_config.virtual_hosts[1].routes[0].direct_response;
      }),
    );
    expect(issues).toEqual([
      {
        path: `${HCM_PATH}.route_config.virtual_hosts[0].routes[0]`,
        rule: 'oneof',
        message: 'only one of route, direct_response may be set (oneof action)',
      },
      {
        path: `${HCM_PATH}.route_config.virtual_hosts[1].routes[0]`,
        rule: 'oneof.required',
        message: expect.stringMatching(/^one of route, redirect, direct_response, .* is required \(oneof action\)$/),
      },
    ]);
  });

  test('numeric range: port 70000 in a SocketAddress', () => {
    const issues = checkMessage(
      BOOTSTRAP,
      broken(
        (b) =>
          (b.static_resources.clusters[0].load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address.port_value = 70000),
      ),
    );
    expect(issues).toEqual([
      {
        path: 'static_resources.clusters[0].load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address.port_value',
        rule: 'uint32.lte',
        message: 'must be at most 65535, got 70000',
      },
    ]);
  });

  test('numeric types: out of range for the type, fractions, and rules on wrappers', () => {
    expect(rules(checkMessage('envoy.config.core.v3.SocketAddress', { address: 'a', port_value: -1 }))).toEqual([
      'json_type @ port_value',
    ]);
    expect(rules(checkMessage('envoy.config.core.v3.SocketAddress', { address: 'a', port_value: 1.5 }))).toEqual([
      'json_type @ port_value',
    ]);
    expect(rules(checkMessage('envoy.type.v3.Int64Range', { start: '9223372036854775808' }))).toEqual([
      'json_type @ start',
    ]);
    const rateLimit = { stage: 11, actions: [{ remote_address: {} }] };
    expect(rules(checkMessage('envoy.config.route.v3.RateLimit', rateLimit))).toEqual(['uint32.lte @ stage']);
    const status = { status: 700 };
    expect(rules(checkMessage('envoy.config.route.v3.DirectResponseAction', status))).toEqual(['uint32.lt @ status']);
  });

  test('map rules: min_pairs and key rules', () => {
    expect(rules(checkMessage('envoy.config.core.v3.Metadata', { filter_metadata: { '': {}, ok: {} } }))).toEqual([
      'string.min_len @ filter_metadata[""]',
    ]);
    expect(rules(checkMessage('envoy.service.rate_limit_quota.v3.BucketId', { bucket: { a: '' } }))).toEqual([
      'string.min_len @ bucket.a',
    ]);
    expect(rules(checkMessage('envoy.service.rate_limit_quota.v3.BucketId', {}))).toEqual(['map.min_pairs @ bucket']);
    const matcher = {
      input: {
        name: 'i',
        typed_config: {
          '@type': 'type.googleapis.com/envoy.type.matcher.v3.HttpRequestHeaderMatchInput',
          header_name: 'x',
        },
      },
      exact_match_map: { map: {} },
    };
    expect(rules(checkMessage('envoy.config.common.matcher.v3.Matcher.MatcherTree', matcher))).toEqual([
      'map.min_pairs @ exact_match_map.map',
    ]);
  });

  test('deprecated fields', () => {
    expect(checkMessage(CLUSTER, { ...strictDnsCluster(), http2_protocol_options: {} })).toEqual([
      {
        path: 'http2_protocol_options',
        rule: 'deprecated',
        message: 'http2_protocol_options is deprecated in envoy.config.cluster.v3.Cluster; use its replacement',
      },
    ]);
  });

  test('a TypedStruct is checked as the message its type_url names', () => {
    const typed = (value: Json) => ({
      '@type': 'type.googleapis.com/xds.type.v3.TypedStruct',
      type_url: 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router',
      value,
    });
    expect(checkMessage('google.protobuf.Any', typed({ suppress_envoy_headers: true }))).toEqual([]);
    expect(rules(checkMessage('google.protobuf.Any', typed({ suppress_envoy_header: true })))).toEqual([
      'unknown_field @ value.suppress_envoy_header',
    ]);
  });

  test('any rules: required', () => {
    expect(rules(checkMessage('envoy.config.core.v3.TypedExtensionConfig', { name: 'x' }))).toEqual([
      'any.required @ typed_config',
    ]);
  });

  test('sidecar messages: unknown fields and types in AuthConfig', () => {
    const cfg = {
      name: 'default.ldap',
      configs: [{ ldap: { address: 'ldap://127.0.0.1:389', pool: { max_size: 'five' }, groups: [] } }],
    };
    expect(rules(checkMessage('sluice.extauth.v1.AuthConfig', cfg))).toEqual([
      'json_type @ configs[0].ldap.pool.max_size',
      'unknown_field @ configs[0].ldap.groups',
    ]);
  });
});

describe('encodeMessage / decodeMessage', () => {
  test('a bootstrap round-trips through the wire form, less the proto3 default values', () => {
    const b = bootstrap();
    const bytes = encodeMessage(BOOTSTRAP, b);
    // lb_policy ROUND_ROBIN and codec_type AUTO are enum value 0: proto3 does not put them on the wire.
    const expected: any = bootstrap();
    delete expected.static_resources.clusters[0].lb_policy;
    delete hcmOf(expected).codec_type;
    expect(decodeMessage(BOOTSTRAP, bytes)).toEqual(expected);
  });

  test('default values are written when they set a oneof', () => {
    const sa = { address: '0.0.0.0', port_value: 0 };
    expect(
      decodeMessage('envoy.config.core.v3.SocketAddress', encodeMessage('envoy.config.core.v3.SocketAddress', sa)),
    ).toEqual(sa);
    const ra = { cluster: 'c', timeout: '0s' };
    expect(
      decodeMessage('envoy.config.route.v3.RouteAction', encodeMessage('envoy.config.route.v3.RouteAction', ra)),
    ).toEqual(ra);
  });

  test('WKTs take their message form on the wire (protobufjs decode)', () => {
    const cluster = strictDnsCluster();
    cluster.connect_timeout = '1.5s';
    cluster.per_connection_buffer_limit_bytes = 1024;
    cluster.metadata = { filter_metadata: { sluice: { a: 'x', n: 2, l: [true, null] } } };
    const raw = lookupType(CLUSTER).decode(encodeMessage(CLUSTER, cluster)) as any;
    expect(raw.type).toBe(1); // STRICT_DNS
    expect(Number(raw.connect_timeout.seconds)).toBe(1);
    expect(raw.connect_timeout.nanos).toBe(500_000_000);
    expect(raw.per_connection_buffer_limit_bytes.value).toBe(1024);
    const fields = raw.metadata.filter_metadata.sluice.fields;
    expect(fields.a.stringValue).toBe('x');
    expect(fields.n.numberValue).toBe(2);
    expect(fields.l.listValue.values.map((v: any) => v.kind)).toEqual(['boolValue', 'nullValue']);
    delete cluster.lb_policy; // ROUND_ROBIN is the default
    expect(decodeMessage(CLUSTER, encodeMessage(CLUSTER, cluster))).toEqual(cluster);
  });

  test('nested Anys are encoded as their own message (HCM with jwt, rbac, ext_authz)', () => {
    const any = toAny(securedHcm());
    expect(any.type_url).toBe(
      'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
    );
    const hcm = lookupType(any.type_url).decode(any.value) as any;
    const jwtAny = hcm.http_filters[0].typed_config;
    expect(jwtAny.type_url).toBe('type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication');
    const jwt = lookupType(jwtAny.type_url).decode(jwtAny.value) as any;
    expect(jwt.providers['default.petstore.okta'].remote_jwks.http_uri.timeout.seconds.toString()).toBe('5');
    const expected: any = securedHcm();
    delete expected.http_filters[2].typed_config.failure_mode_allow; // false is the default
    expect(decodeMessage('google.protobuf.Any', encodeMessage('google.protobuf.Any', securedHcm()))).toEqual(expected);
    const rc = securedRouteConfig();
    const rcExpected: any = securedRouteConfig();
    delete rcExpected.virtual_hosts[0].typed_per_filter_config['envoy.filters.http.rbac'].rbac.rules.action; // ALLOW is 0
    expect(decodeMessage(ROUTE_CONFIG, encodeMessage(ROUTE_CONFIG, rc))).toEqual(rcExpected);
  });

  test('the bytes equal protobufjs encoding of the same message (negative ints, doubles, packed repeated, maps)', () => {
    // [type, proto3 JSON, the same as protobufjs' fromObject wants it (WKTs in message form)]
    const cases: Array<[string, Json, Json]> = [
      ['envoy.type.v3.Int32Range', { start: -5, end: 10 }, { start: -5, end: 10 }],
      [
        'envoy.type.v3.Int64Range',
        { start: '-9007199254740993', end: '9223372036854775807' },
        { start: '-9007199254740993', end: '9223372036854775807' },
      ],
      ['envoy.type.v3.DoubleRange', { start: -1.5, end: 2.25 }, { start: -1.5, end: 2.25 }],
      // varint length boundaries: 2^28 (5 bytes), 2^49 (8 bytes), 2^53 - 1
      ['envoy.type.v3.Int64Range', { start: 2 ** 28, end: 2 ** 49 }, { start: 2 ** 28, end: 2 ** 49 }],
      [
        'envoy.type.v3.Int64Range',
        { start: 2 ** 49 - 1, end: Number.MAX_SAFE_INTEGER },
        { start: 2 ** 49 - 1, end: Number.MAX_SAFE_INTEGER },
      ],
      [
        'envoy.config.route.v3.RetryPolicy',
        { retry_on: '5xx', num_retries: 3, per_try_timeout: '0.25s', retriable_status_codes: [503, 504, 70000] },
        {
          retry_on: '5xx',
          num_retries: { value: 3 },
          per_try_timeout: { nanos: 250_000_000 },
          retriable_status_codes: [503, 504, 70000],
        },
      ],
      ['envoy.config.core.v3.Metadata', { filter_metadata: { a: {} } }, { filter_metadata: { a: { fields: {} } } }],
      [
        'envoy.config.core.v3.HeaderValue',
        { key: 'x-ünïcödé', value: 'v'.repeat(300) },
        { key: 'x-ünïcödé', value: 'v'.repeat(300) },
      ],
    ];
    for (const [name, json, object] of cases) {
      const type = lookupType(name);
      const theirs = type.encode(type.fromObject(object)).finish();
      expect(Buffer.from(encodeMessage(name, json)).toString('hex')).toBe(Buffer.from(theirs).toString('hex'));
    }
    const range = lookupType('envoy.type.v3.Int32Range').decode(
      encodeMessage('envoy.type.v3.Int32Range', { start: -5 }),
    ) as any;
    expect(range.start).toBe(-5);
  });

  test('int64 strings, bytes, enums by number and lowerCamel names', () => {
    const range = lookupType('envoy.type.v3.Int64Range').decode(
      encodeMessage('envoy.type.v3.Int64Range', { start: '-5', end: 9007199254740993 }),
    ) as any;
    expect(range.start.toString()).toBe('-5');
    const ds = decodeMessage(
      'envoy.config.core.v3.DataSource',
      encodeMessage('envoy.config.core.v3.DataSource', { inlineBytes: 'aGVsbG8' }),
    );
    expect(Buffer.from(ds.inline_bytes as string, 'base64').toString()).toBe('hello');
    expect(decodeMessage(CLUSTER, encodeMessage(CLUSTER, { name: 'c', type: 1 })).type).toBe('STRICT_DNS');
  });
});
