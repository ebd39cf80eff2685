/**
 * Log lines with a key written twice (`{"api":"a",...,"api":"b"}`: a child
 * logger's binding and a field of the same name) are valid JSON to pino and
 * half lost to every reader, which keeps one of the two. The tests' loggers
 * check every line they make, whether the test reads it or not; tests that
 * read a binary's output parse it with logLine, which refuses such a line.
 * A file's lines that failed are reported after its last test (the setup
 * file test/log-check.ts), so a repeated key fails the file that logged it.
 */
import { visit } from 'jsonc-parser';
import { pino, type DestinationStream, type LevelWithSilent, type Logger } from 'pino';

/** The keys an object of `line` repeats, as paths (`api`, `resources.Cluster`). */
export function repeatedKeys(line: string): string[] {
  const repeated: string[] = [];
  const objects: Set<string>[] = [];
  visit(line, {
    onObjectBegin: () => void objects.push(new Set()),
    onObjectEnd: () => void objects.pop(),
    onObjectProperty: (key, _offset, _length, _line, _column, pathOf) => {
      const keys = objects.at(-1)!;
      if (keys.has(key)) repeated.push([...pathOf(), key].join('.'));
      keys.add(key);
    },
  });
  return repeated;
}

const badLines: string[] = [];

/** Notes `line` (one or more log lines) when one repeats a key. */
export function checkLogText(text: string): void {
  for (const line of text.split('\n')) {
    const repeated = line.startsWith('{') ? repeatedKeys(line) : [];
    if (repeated.length) badLines.push(`${repeated.join(', ')} twice in ${line}`);
  }
}

/** The lines noted so far with a repeated key (emptied). */
export function linesWithRepeatedKeys(): string[] {
  return badLines.splice(0);
}

/** One JSON log line of a binary, parsed; a line that repeats a key is an error naming it. */
export function logLine<T = Record<string, unknown>>(line: string): T {
  const repeated = repeatedKeys(line);
  if (repeated.length) throw new Error(`log line with ${repeated.join(', ')} twice: ${line}`);
  return JSON.parse(line) as T;
}

/**
 * A logger for a test: every line it makes, at any level, is checked for
 * repeated keys; those at `level` and above also go to `sink`. So a test
 * that wants silence still has its lines made (and checked), and written nowhere.
 */
export function testLogger(level: LevelWithSilent = 'silent', sink?: DestinationStream): Logger {
  const checker = { write: (line: string) => checkLogText(line) };
  const streams = [
    { level: 'trace' as const, stream: checker },
    ...(sink && level !== 'silent' ? [{ level, stream: sink }] : []),
  ];
  return pino({ level: 'trace' }, pino.multistream(streams));
}
