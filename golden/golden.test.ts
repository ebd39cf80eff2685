/**
 * Golden cases: each `golden/<case>/input/` is compiled with the default
 * options (or those `golden/<case>/options.json` sets) and compared with `golden/<case>/expected/`: the static bootstrap,
 * the xDS set `serve` serves (`xds.<kind>.yaml`, the kinds it has), the
 * sidecar configs (each prefixed `<proxy>.` when the Gateways name several
 * proxies), `ir.yaml` (the IR resolve made, as `sluice compile --dump-ir`
 * prints it, so a diff says whether resolve or translate changed), and
 * `warnings.txt` if there are any; or `errors.txt` when the input is meant
 * to fail (no IR is made then: the errors are what resolve gave).
 * `npm run golden:update` rewrites the expected files; review the diff.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatDiagnostic } from '../compiler/diagnostics.js';
import { dumpIr } from '../compiler/ir/dump.js';
import { staticBootstrap } from '../compiler/emit/bootstrap.js';
import { renderOutput, renderXds, textOf } from '../compiler/emit/write.js';
import { compileFiles } from '../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../compiler/translate/output.js';
import { verifyBootstrap } from '../compiler/verify/verify.js';

const GOLDEN = 'golden';
const update = process.env.UPDATE_GOLDEN === '1';
const cases = readdirSync(GOLDEN, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

async function render(caseName: string): Promise<Record<string, string>> {
  // A case may set compile options (options.json), as the command-line flags would.
  const optionsFile = path.join(GOLDEN, caseName, 'options.json');
  const options = existsSync(optionsFile)
    ? { ...DEFAULT_OPTIONS, ...JSON.parse(readFileSync(optionsFile, 'utf8')) }
    : DEFAULT_OPTIONS;
  const result = await compileFiles([path.join(GOLDEN, caseName, 'input')], options);
  if (!result.xds && !result.proxies)
    return { 'errors.txt': `${result.diagnostics.map(formatDiagnostic).join('\n')}\n` };
  // A fleet: each proxy's files, named after it.
  const sets = result.xds
    ? [['', result.xds] as const]
    : [...result.proxies!].map(([proxy, set]) => [`${proxy}.`, set] as const);
  const files: Record<string, string> = {};
  for (const [prefix, set] of sets) {
    // The set was verified; the bootstrap emit makes of it must pass too. Mesh mode and VHDS are served only: no static bootstrap.
    const servedOnly = options.mesh || options.vhds;
    if (!servedOnly) expect(verifyBootstrap(staticBootstrap(set, options)).map(formatDiagnostic)).toEqual([]);
    const own = { ...renderOutput(set, options, 'yaml'), ...renderXds(set) };
    if (servedOnly) delete own['envoy.yaml'];
    // Sidecar files only where the case has sidecar resources, to keep goldens small.
    if (set.authConfigs.size === 0) delete own['extauth.json'];
    if (set.graphqlApis.size === 0) delete own['graphql.json'];
    for (const [file, text] of Object.entries(own)) files[`${prefix}${file}`] = textOf(text);
  }
  files['ir.yaml'] = dumpIr(result.ir!);
  // Warnings do not stop the compile; the case records them next to its output.
  if (result.diagnostics.length > 0) files['warnings.txt'] = `${result.diagnostics.map(formatDiagnostic).join('\n')}\n`;
  return files;
}

test('there are golden cases', () => {
  expect(cases.length).toBeGreaterThan(0);
});

describe.each(cases)('golden %s', (caseName) => {
  test('compiles to the expected output', async () => {
    const actual = await render(caseName);
    const dir = path.join(GOLDEN, caseName, 'expected');
    if (update) {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      for (const [file, text] of Object.entries(actual)) writeFileSync(path.join(dir, file), text);
    }
    expect(existsSync(dir)).toBe(true);
    const expectedFiles = readdirSync(dir).sort();
    expect(Object.keys(actual).sort()).toEqual(expectedFiles);
    for (const file of expectedFiles) {
      expect(`${file}:\n${actual[file]}`).toEqual(`${file}:\n${readFileSync(path.join(dir, file), 'utf8')}`);
    }
  });
});
