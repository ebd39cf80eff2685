/** The version every binary prints (`--version`): package.json's, read once. */
import { readFileSync } from 'node:fs';

// From runtime/ (sources under jest) or dist/runtime/ (built): package.json is one or two levels up.
function readVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'sluice' && pkg.version) return pkg.version;
    } catch {
      // not this level
    }
  }
  return 'unknown';
}

export const VERSION = readVersion();
