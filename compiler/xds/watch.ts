/**
 * Watches resource files and directories (inotify through fs.watch; recursive
 * for directories) and calls `onChange` once per burst of events: editors
 * write, rename and chmod in quick succession, and a `git checkout` touches
 * many files at once.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface Watcher {
  close(): void;
}

export function watchInputs(paths: string[], onChange: () => void, quietMs = 100): Watcher {
  let timer: NodeJS.Timeout | undefined;
  const fire = () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, quietMs);
  };
  const watchers: fs.FSWatcher[] = [];
  for (const p of paths) {
    const abs = path.resolve(p);
    const isDir = fs.existsSync(abs) && fs.statSync(abs).isDirectory();
    if (isDir) {
      watchers.push(fs.watch(abs, { recursive: true }, fire));
    } else {
      // Watch the folder: editors replace a file by renaming over it, which ends a watch on the file itself.
      const base = path.basename(abs);
      watchers.push(fs.watch(path.dirname(abs), (_event, name) => (name === null || name === base ? fire() : undefined)));
    }
  }
  for (const w of watchers) w.on('error', fire);
  return {
    close() {
      clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
