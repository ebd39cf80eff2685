import { readdirSync } from 'node:fs';
import path from 'node:path';
import { dump } from 'js-yaml';
import { compileFiles } from '../pipeline.js';
import { DEFAULT_OPTIONS } from '../translate/output.js';
import { staticBootstrap } from './bootstrap.js';
import { yamlPieces } from './yaml.js';

const dumpYaml = (value: unknown, limit: number) => [...yamlPieces(value, limit)].join('');

const jsYaml = (v: unknown) => dump(v, { lineWidth: -1, noRefs: true });

/** Scalars and shapes js-yaml writes in their own ways: block scalars with blank and indented lines, quoted keys, empty containers, nested sequences. */
const TRICKY = {
  'envoy.filters.http.jwt_authn': {
    providers: { 'default.a': { issuer: 'https://x', local_jwks: { inline_string: '{"keys":[]}' } } },
  },
  pem: '-----BEGIN CERTIFICATE-----\nMIIB\n\n  indented line\n-----END CERTIFICATE-----\n',
  leading: '  starts with spaces\nand more',
  'key: with colon': [1, 'two', true, null, { a: [] }, [], {}, [[1, 2], ['x']]],
  empty: {},
  list: [{ name: 'a', nested: { deep: [{ x: 'y', z: '- not a list' }] } }, 'plain', { '': 'empty key' }],
  numbers: { port: 8080, ratio: 0.5, big: 12345678901234, negative: -1, str: '0123' },
};

test("piece by piece gives js-yaml's text exactly, at every threshold, on tricky shapes", () => {
  for (const limit of [0, 1, 2, 5, 50]) expect(dumpYaml(TRICKY, limit)).toBe(jsYaml(TRICKY));
});

test("piece by piece gives js-yaml's text exactly for every golden case's bootstrap and xDS set", async () => {
  const cases = readdirSync('golden', { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  let compared = 0;
  for (const name of cases) {
    const result = await compileFiles([path.join('golden', name, 'input')], DEFAULT_OPTIONS);
    for (const set of result.xds ? [result.xds] : [...(result.proxies?.values() ?? [])]) {
      const values = [
        staticBootstrap(set, DEFAULT_OPTIONS),
        [...set.listeners.values()],
        [...set.routes.values()],
        [...set.clusters.values()],
      ];
      for (const v of values) {
        expect(dumpYaml(v, 1)).toBe(jsYaml(v));
        expect(dumpYaml(v, 40)).toBe(jsYaml(v));
        compared++;
      }
    }
  }
  expect(compared).toBeGreaterThan(100);
});
