/**
 * Which files -f names: files as given, directories walked for resource files
 * (symbolic links followed, each directory once), and the file system's errors
 * said with the path and what to do.
 */
import { promises as fs, type Dirent, type Stats } from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from '../diagnostics.js';

export const RESOURCE_FILE = /\.(ya?ml|json)$/i;

/** The resource files under `paths`, each once, in load order. */
export async function listInputFiles(paths: string[]): Promise<{ files: string[]; diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  if (paths.length === 0)
    return {
      files: [],
      diagnostics: [
        { stage: 'load', message: 'no input given', hint: 'pass resource files or directories with -f PATH' },
      ],
    };
  const files: string[] = [];
  for (const p of paths) files.push(...(await listResourceFiles(p, diagnostics)));
  const seen = new Set<string>();
  return {
    files: files.filter((file) => {
      const key = path.resolve(file);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    }),
    diagnostics,
  };
}

export async function listResourceFiles(p: string, diagnostics: Diagnostic[]): Promise<string[]> {
  let stat;
  try {
    stat = await fs.stat(p);
  } catch (err) {
    diagnostics.push(fsError(p, err));
    return [];
  }
  if (stat.isFile()) return [p];
  if (!stat.isDirectory()) {
    diagnostics.push({
      stage: 'load',
      file: p,
      message: `${fileKind(stat)}, not a regular file or directory`,
      hint: 'pass resource files or directories with -f PATH',
    });
    return [];
  }
  const before = diagnostics.length;
  const found = await walk(p, diagnostics);
  if (found.length === 0 && diagnostics.length === before) {
    diagnostics.push({
      stage: 'load',
      file: p,
      message: 'directory holds no resource files',
      hint: 'resources are read from *.yaml, *.yml and *.json files',
    });
  }
  return found;
}

/**
 * Files under `dir`, sorted. Symbolic links are followed: a Kubernetes
 * ConfigMap volume is made of them (`resources.yaml -> ..data/resources.yaml`).
 * A directory reached twice (a link loop) is read once. Hidden entries are
 * skipped. An entry that cannot be read (a dangling link, permission denied,
 * a path too long, a directory removed meanwhile) is an error naming it, since
 * it may have held resources; the walk goes on with the others.
 */
export async function walk(dir: string, diagnostics: Diagnostic[], visited = new Set<string>()): Promise<string[]> {
  let entries;
  try {
    const real = await fs.realpath(dir);
    if (visited.has(real)) return [];
    visited.add(real);
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch (err) {
    diagnostics.push(fsError(dir, err, 'cannot read directory'));
    return [];
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    let target: Stats | Dirent = entry;
    if (entry.isSymbolicLink()) {
      try {
        target = await fs.stat(full);
      } catch (err) {
        diagnostics.push(fsError(full, err, 'cannot follow link'));
        continue;
      }
    }
    if (target.isDirectory()) out.push(...(await walk(full, diagnostics, visited)));
    else if (!RESOURCE_FILE.test(entry.name)) continue;
    else if (target.isFile()) out.push(full);
    else
      diagnostics.push({
        stage: 'load',
        file: full,
        message: `${fileKind(target)}, not a regular file`,
        hint: 'resource files are regular files; remove it or rename it so it does not end in .yaml, .yml or .json',
      });
  }
  return out;
}

export function fileKind(stat: Stats | Dirent): string {
  if (stat.isFIFO()) return 'a named pipe';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'a special file';
}

/** What a file-system error means for the user, by its code. */
export const FS_ERRORS: Record<string, [message: string, hint: string]> = {
  ENOENT: [
    'no such file or directory',
    'check the path; a link must point at an existing file (or was it removed while loading?)',
  ],
  ENOTDIR: ['a path component is not a directory', 'check the path'],
  EACCES: ['permission denied', 'make it readable by this user, or leave it out of -f'],
  EPERM: ['permission denied', 'make it readable by this user, or leave it out of -f'],
  ENAMETOOLONG: [
    'path is longer than the file system allows',
    'shorten the directory or file names (each at most 255 bytes, the whole path at most 4096)',
  ],
  ELOOP: [
    'too many levels of symbolic links (a link loop)',
    'make the link point at a file or directory, not back at itself',
  ],
  EISDIR: ['is a directory', 'pass the directory itself with -f'],
  EMFILE: ['too many open files', 'raise the open-file limit (ulimit -n)'],
  ENFILE: ['too many open files', 'raise the open-file limit (ulimit -n)'],
};

/** A file-system failure as a diagnostic on `file`; never a stack trace. */
export function fsError(file: string, err: unknown, doing?: string): Diagnostic {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  // Node's own message names the path again, in full: only its first part (`EIO: i/o error`) is kept.
  const [message, hint] = FS_ERRORS[code] ?? [
    (err as Error).message.split(',')[0],
    'check that the path can be read by this user',
  ];
  return { stage: 'load', file, message: doing ? `${doing}: ${message}` : message, hint };
}
