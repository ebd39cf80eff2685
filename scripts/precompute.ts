/**
 * Part of the build: what every process would otherwise work out again at
 * start, from the sources of this build. Each is named by what it was made
 * from, so a process whose sources differ ignores it and does the work itself.
 */
import fs from 'node:fs';
import { accepted } from '../compiler/kinds/accepted.js';
import { KINDS } from '../compiler/kinds/index.js';
import { writeChecks } from '../compiler/validate/schema-check.js';
import { BUILD_ROOT_JSON, parseRoot, rootKey } from '../contract/envoy.js';
import { rootJson } from '../contract/root-cache.js';

const count = await writeChecks(KINDS.map((definition) => accepted(definition.document)));
const { root, skipped } = parseRoot();
fs.writeFileSync(BUILD_ROOT_JSON, rootJson(root, skipped, rootKey()));
process.stderr.write(`build: wrote the schema checks of ${count} kinds and the protos as JSON\n`);
