import { HCM_TYPE } from '../translate/listener.js';
import { compileFiles } from '../pipeline.js';
import { TYPE_URL } from '../../protos/contract.js';
import { DEFAULT_OPTIONS, type CompiledOutput, type Json } from '../translate/output.js';
import { checkMessage } from '../verify/proto-json.js';
import { verifyOutput } from '../verify/verify.js';
import { toXdsResources } from './resources.js';
import { buildSnapshot, inconsistencies } from './snapshot.js';

async function compiled(dir: string): Promise<CompiledOutput> {
  const result = await compileFiles([dir], DEFAULT_OPTIONS);
  expect(result.diagnostics).toEqual([]);
  return result.output!;
}

test('real compiler output: HCM goes to RDS over ADS, static clusters to EDS; every resource passes the verifier', async () => {
  const output = await compiled('golden/several-virtual-services/input');
  const before = JSON.stringify(output);
  const set = toXdsResources(output);
  expect(JSON.stringify(output)).toBe(before); // pure: input untouched

  const hcm = (set[TYPE_URL.listener][0].filter_chains as Json[])[0].filters as Json[];
  const tc = hcm[0].typed_config as Json;
  expect(tc['@type']).toBe(HCM_TYPE);
  expect(tc.route_config).toBeUndefined();
  expect(tc.rds).toEqual({ config_source: { ads: {}, resource_api_version: 'V3' }, route_config_name: (output.routes[0] as Json).name });
  expect(set[TYPE_URL.route]).toEqual(output.routes);

  const legacy = set[TYPE_URL.cluster].find((c) => c.name === 'legacy')!;
  expect(legacy).toMatchObject({ type: 'EDS', eds_cluster_config: { eds_config: { ads: {} } } });
  expect(legacy.load_assignment).toBeUndefined();
  const assignment = set[TYPE_URL.endpoint].find((e) => e.cluster_name === 'legacy')!;
  expect(JSON.stringify(assignment)).toContain('10.0.0.8');
  for (const c of set[TYPE_URL.cluster].filter((c) => c.type === 'STRICT_DNS')) expect(c.load_assignment).toBeDefined();

  const asOutput = { listeners: set[TYPE_URL.listener], routes: set[TYPE_URL.route], clusters: set[TYPE_URL.cluster], authConfigs: set[TYPE_URL.authConfig], graphqlApis: set[TYPE_URL.graphqlApi] };
  expect(verifyOutput(asOutput)).toEqual([]);
  for (const e of set[TYPE_URL.endpoint]) expect(checkMessage(TYPE_URL.endpoint.split('/')[1], e)).toEqual([]);
  expect(inconsistencies(set)).toEqual([]);
  expect(buildSnapshot(set).type(TYPE_URL.endpoint)!.resources.size).toBe(set[TYPE_URL.endpoint].length);
});

test('snapshot versions are content hashes: same input, same versions; one change, one resource version', async () => {
  const output = await compiled('golden/several-virtual-services/input');
  const a = buildSnapshot(toXdsResources(output));
  const b = buildSnapshot(toXdsResources(structuredClone(output)));
  expect(b.version).toBe(a.version);
  const changed = structuredClone(output);
  ((changed.routes[0].virtual_hosts as Json[])[0].routes as Json[])[0].match = { prefix: '/changed' };
  const c = buildSnapshot(toXdsResources(changed));
  expect(c.version).not.toBe(a.version);
  expect(c.type(TYPE_URL.cluster)!.version).toBe(a.type(TYPE_URL.cluster)!.version);
  expect(c.type(TYPE_URL.listener)!.version).toBe(a.type(TYPE_URL.listener)!.version);
  expect(c.type(TYPE_URL.route)!.version).not.toBe(a.type(TYPE_URL.route)!.version);
});

test('an inconsistent set is refused: RDS name without routes, EDS cluster without assignment', () => {
  const set = toXdsResources({
    listeners: [{ name: 'l', filter_chains: [{ filters: [{ name: 'hcm', typed_config: { '@type': HCM_TYPE, stat_prefix: 'l', rds: { route_config_name: 'missing', config_source: { ads: {} } } } }] }] }],
    routes: [],
    clusters: [{ name: 'e', type: 'EDS', eds_cluster_config: { eds_config: { ads: {} } } }],
    authConfigs: [],
    graphqlApis: [],
  });
  expect(inconsistencies(set)).toEqual([
    'listener "l" uses route configuration "missing", which does not exist',
    'EDS cluster "e" has no ClusterLoadAssignment',
  ]);
  expect(() => buildSnapshot(set)).toThrow(/inconsistent snapshot/);
});
