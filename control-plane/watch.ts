/**
 * Watches resource files and directories and calls `onChange` once per burst
 * of events: editors write, rename and chmod in quick succession, and a
 * `git checkout` touches many files at once.
 *
 * One non-recursive fs.watch (inotify) per directory of the tree: Node 20's
 * `recursive: true` on Linux loses a file once an editor renames a new
 * version over it. Directories created later are picked up from their
 * parent's rename event.
 */
import fs from 'node:fs';
import path from 'node:path';
import { coalesce } from './coalesce.js';

/**
 * Quiet period that ends a burst. An editor's save (write a temporary file,
 * rename it over) or `git checkout` raises its events within a few ms; every
 * ms of quiet is added to the time an edit takes to reach Envoy.
 */
export const DEBOUNCE_MS = 15;

export interface Watcher {
  close(): void;
}

export function watchInputs(paths: string[], onChange: () => void, quietMs = DEBOUNCE_MS): Watcher {
  const burst = coalesce(onChange, { quietMs });
  const fire = () => burst.fire();
  const watchers = new Map<string, fs.FSWatcher>();
  const isDir = (p: string) => {
    try {
      return fs.statSync(p).isDirectory();
    } catch {
      return false;
    }
  };
  const watchDir = (dir: string, recursive: boolean, only?: string) => {
    const key = only === undefined ? dir : `${dir}\0${only}`;
    if (watchers.has(key)) return;
    let w: fs.FSWatcher;
    try {
      w = fs.watch(dir, (event, name) => {
        if (only !== undefined && name !== null && name !== only) return;
        fire();
        if (recursive && event === 'rename' && name !== null) {
          const child = path.join(dir, name);
          if (isDir(child)) watchDir(child, true);
        }
      });
    } catch {
      return; // vanished between listing and watching
    }
    w.on('error', () => {
      w.close();
      watchers.delete(key);
      fire();
    });
    watchers.set(key, w);
    if (recursive)
      for (const entry of fs.readdirSync(dir, { withFileTypes: true }))
        if (entry.isDirectory()) watchDir(path.join(dir, entry.name), true);
  };
  for (const p of paths) {
    const abs = path.resolve(p);
    // A single file: watch its folder, since an editor's rename-over ends a watch on the file itself.
    if (isDir(abs)) watchDir(abs, true);
    else watchDir(path.dirname(abs), false, path.basename(abs));
  }
  return {
    close() {
      burst.close();
      for (const w of watchers.values()) w.close();
    },
  };
}
