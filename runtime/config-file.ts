/**
 * A sidecar's `--config FILE`, the same way for sluice-extauth and
 * sluice-graphql: a JSON syntax error said without quoting the file (it may
 * hold passwords), and the file watched: each change applied all or nothing,
 * a bad edit logged with the last good configuration left in force.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import type { Logger } from 'pino';

/**
 * Where and why `text` is not JSON (RFC 8259), as line and column (1-based),
 * naming no part of the text; undefined when the parser finds no error.
 * jsonc-parser reports error codes and offsets, never excerpts (V8's
 * JSON.parse message quotes the text around the error).
 */
export function jsonSyntaxError(text: string): { line: number; column: number; reason: string } | undefined {
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return undefined;
  const before = text.slice(0, first.offset);
  const reason = printParseErrorCode(first.error).replace(
    /[A-Z]/g,
    (c, i: number) => `${i ? ' ' : ''}${c.toLowerCase()}`,
  );
  return { line: before.split('\n').length, column: first.offset - before.lastIndexOf('\n'), reason };
}

/**
 * Reads `file` and parses its JSON with `parse`. Every failure is an
 * `ErrorType` naming the file: unreadable, not JSON (line and column only),
 * or `parse`'s own ErrorType, prefixed with the file.
 */
export async function loadJsonConfig<T>(
  file: string,
  parse: (json: unknown) => T,
  ErrorType: new (message: string) => Error,
): Promise<T> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ErrorType(`cannot read ${file}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const at = jsonSyntaxError(text);
    throw new ErrorType(`${file}: not JSON${at ? `: ${at.reason} at line ${at.line}, column ${at.column}` : ''}`);
  }
  try {
    return parse(json);
  } catch (err) {
    if (err instanceof ErrorType) throw new ErrorType(`${file}: ${err.message}`);
    throw err;
  }
}

/** Editors and `sluice compile -o` write in steps; one reload after the burst. */
const DEBOUNCE_MS = 100;

export interface WatchedFile {
  close(): void;
}

/**
 * Runs `apply` now (its error stops the start), then after every change of
 * `file`; `apply` reads, checks and puts the file in force all or nothing,
 * and throws to leave the previous configuration in force. The directory is
 * watched, not the file: an editor or a compile that replaces the file by
 * renaming would end a watch on the file itself. Any entry of the directory
 * counts, since a Kubernetes ConfigMap volume changes the file by swapping
 * its `..data` symbolic link; a change is applied when the text differs.
 */
export async function watchConfigFile(file: string, apply: () => Promise<void>, logger: Logger): Promise<WatchedFile> {
  let lastText = await readFile(file, 'utf8').catch(() => undefined);
  await apply();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const reload = async () => {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    // Unchanged (a touch, or the directory's other files): nothing to do. Missing: keep serving; it is being replaced.
    if (closed || text === undefined || text === lastText) return;
    lastText = text;
    try {
      await apply();
      logger.info({ file }, 'configuration file applied');
    } catch (err) {
      logger.error(
        { file, err: (err as Error).message },
        'configuration file rejected; the previous configuration stays in force',
      );
    }
  };
  const watcher: FSWatcher = watch(path.dirname(path.resolve(file)), () => {
    clearTimeout(timer);
    timer = setTimeout(() => void reload(), DEBOUNCE_MS);
  });
  watcher.on('error', (err) =>
    logger.error(
      { file, err: err.message },
      'cannot watch the configuration file; changes are not applied until a restart',
    ),
  );
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      watcher.close();
    },
  };
}
