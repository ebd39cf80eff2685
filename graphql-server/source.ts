/**
 * Where the configuration comes from. `--config FILE`: read at start (a bad
 * file stops the start), then watched; each change is applied all or
 * nothing, and a bad edit is logged and leaves the last good set in force.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { GraphQLApiConfig } from './api.js';
import { loadConfigFile } from './config.js';

/** Editors and `sluice compile -o` write in steps; one reload after the burst. */
const DEBOUNCE_MS = 100;

export interface FileSource {
  close(): void;
}

/**
 * Applies `file` now (throws when it cannot be read, parsed or applied), then
 * on every change; `apply` runs `load` and counts the outcome. The directory is watched, not the file: an editor or a
 * compile that replaces the file by renaming would end a watch on the file.
 */
export async function watchConfigFile(file: string, apply: (load: () => Promise<GraphQLApiConfig[]>) => Promise<void>, logger: Logger): Promise<FileSource> {
  const load = () => loadConfigFile(file);
  let lastText = await readFile(file, 'utf8').catch(() => undefined);
  await apply(load);
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const reload = async () => {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    // Unchanged (a touch, or the directory's other files): nothing to do. Missing: keep serving; it is being replaced.
    if (closed || text === undefined || text === lastText) return;
    lastText = text;
    try {
      await apply(load);
      logger.info({ file }, 'configuration file applied');
    } catch (err) {
      logger.error({ file, err: (err as Error).message }, 'configuration file rejected; the previous configuration stays in force');
    }
  };
  const watcher: FSWatcher = watch(path.dirname(path.resolve(file)), (_event, name) => {
    if (name !== null && name !== path.basename(file)) return;
    clearTimeout(timer);
    timer = setTimeout(() => void reload(), DEBOUNCE_MS);
  });
  watcher.on('error', (err) => logger.error({ file, err: err.message }, 'cannot watch the configuration file; changes are not applied until a restart'));
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      watcher.close();
    },
  };
}
