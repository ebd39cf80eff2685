import type { ExtProcFilterIR, FilterStageName } from '../ir/ext-proc.js';
import type { HttpListenerOptionsIR } from '../ir/listener-options.js';
import { chainHttpFilters, routerFilter } from './gateway-filters.js';
import type { Json } from './output.js';

const H = 'envoy.filters.http.';
// Sluice's shared chain with every concern in use, as translate orders it.
const SHARED: Json[] = [
  'fault',
  'cors',
  'local_ratelimit',
  'ratelimit.ingress.early',
  'header_mutation',
  'jwt_authn',
  'rbac',
  'ext_authz',
  'ext_authz.custom',
  'ratelimit.ingress',
  'csrf',
].map((n) => ({ name: `${H}${n}`, typed_config: {} }));

const proc = (
  slot: ExtProcFilterIR['slot'],
  stage: FilterStageName,
  predicate: ExtProcFilterIR['stage']['predicate'] = 'During',
): ExtProcFilterIR => ({
  slot,
  service: { cluster: `proc-${slot}`, initialMetadata: [] },
  stage: { stage, predicate },
});

const names = (options: HttpListenerOptionsIR) =>
  chainHttpFilters(SHARED, options).map((f) => (f.name as string).replace(H, ''));

/** The filter just before and just after the one named. */
const around = (chain: string[], name: string) => {
  const i = chain.indexOf(name);
  return [chain[i - 1], chain[i + 1]];
};

describe("a Gateway's ext_proc filters in its chain", () => {
  test.each([
    ['FaultStage', 'Before', [undefined, 'fault']],
    ['FaultStage', 'After', ['fault', 'cors']],
    ['CorsStage', 'After', ['cors', 'local_ratelimit']],
    ['AuthNStage', 'Before', ['cors', 'local_ratelimit']],
    ['AuthNStage', 'During', ['ext_authz.custom', 'ratelimit.ingress']],
    ['AuthZStage', 'During', ['ext_authz.custom', 'ratelimit.ingress']],
    // Gloo orders the filters of one place by name: ext_proc before ratelimit.
    ['RateLimitStage', 'During', ['ext_authz.custom', 'ratelimit.ingress']],
    ['RateLimitStage', 'After', ['ratelimit.ingress', 'csrf']],
    ['RateLimitStage', 'Before', ['ext_authz.custom', 'ratelimit.ingress']],
    ['RouteStage', 'During', ['csrf', undefined]],
    ['RouteStage', 'Before', ['ratelimit.ingress', 'csrf']],
  ] as const)('%s %s goes between %j', (stage, predicate, expected) => {
    expect(around(names({ extProc: [proc('regular', stage, predicate)] }), 'ext_proc')).toEqual(expected);
  });

  test("the Gateway's own filters count at their Gloo stages: grpc_web after authorization, buffer in the route stage", () => {
    const chain = names({
      grpcWeb: true,
      maxRequestBytes: 1024,
      extProc: [proc('early', 'AuthZStage', 'After'), proc('regular', 'RouteStage', 'Before')],
    });
    // grpc_web's place too: by name, ext_proc.early first.
    expect(around(chain, 'ext_proc.early')).toEqual(['ext_authz.custom', 'grpc_web']);
    expect(around(chain, 'ext_proc')).toEqual(['ratelimit.ingress', 'buffer']);
  });

  test('at the same stage the early filter comes first', () => {
    const chain = names({ extProc: [proc('early', 'CorsStage'), proc('regular', 'CorsStage')] });
    expect(chain.slice(1, 4)).toEqual(['cors', 'ext_proc.early', 'ext_proc']);
  });

  test("the late filter is one of the router's upstream filters, before the codec, whatever its stage", () => {
    const options = { extProc: [proc('late', 'FaultStage', 'Before')] };
    expect(names(options)).toEqual(SHARED.map((f) => (f.name as string).replace(H, '')));
    const upstream = (routerFilter(options).typed_config as Json).upstream_http_filters as Json[];
    expect(upstream.map((f) => f.name)).toEqual([`${H}ext_proc.late`, `${H}upstream_codec`]);
    expect(((upstream[0]!.typed_config as Json).grpc_service as Json).envoy_grpc).toEqual({
      cluster_name: 'proc-late',
    });
  });
});
