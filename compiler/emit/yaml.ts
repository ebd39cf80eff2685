/**
 * YAML text of a large value, as js-yaml's `dump` writes it, byte for byte,
 * but piece by piece: js-yaml builds a block by joining its children's
 * strings, so a 30 MiB bootstrap costs several times its size in
 * intermediate strings at once. Here containers past a size are walked and
 * their entries dumped one at a time by js-yaml, then indented to their
 * place; the text is the same (yaml.test.ts compares both on every golden).
 */
import { dump } from 'js-yaml';

const OPTIONS = { lineWidth: -1, noRefs: true } as const;

/** Nodes (containers and scalars) past which a container is written piece by piece. */
export const PIECEWISE_NODES = 2000;

/** The text as pieces, in order, each made when it is asked for: a file is written from them without its text ever being in memory whole, or even all its pieces. */
export function* yamlPieces(value: unknown, piecewiseNodes = PIECEWISE_NODES): Generator<string> {
  if (!isContainer(value) || isEmpty(value) || !larger(value, piecewiseNodes)) yield dump(value, OPTIONS);
  else yield* block(value, 0, piecewiseNodes);
}

type Container = Record<string, unknown> | unknown[];

function isContainer(value: unknown): value is Container {
  return (
    Array.isArray(value) ||
    (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
  );
}

function isEmpty(value: Container): boolean {
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
}

/** Whether `value` has more than `limit` nodes; stops counting there. */
function larger(value: unknown, limit: number): boolean {
  let left = limit;
  const walk = (v: unknown): boolean => {
    if (--left < 0) return true;
    if (Array.isArray(v)) return v.some(walk);
    if (isContainer(v)) return Object.values(v).some(walk);
    return false;
  };
  return walk(value);
}

/** `text` (js-yaml output at indent 0) moved right by `indent` spaces; empty lines stay empty, as js-yaml leaves them. */
function indented(text: string, indent: number): string {
  if (indent === 0) return text;
  const pad = ' '.repeat(indent);
  return text.replace(/^(?=.)/gm, pad);
}

/** A non-empty container's block at `indent`: a large child is written the same way, the others by js-yaml. */
function* block(value: Container, indent: number, limit: number): Generator<string> {
  if (Array.isArray(value)) {
    for (const item of value) {
      if (isContainer(item) && !Array.isArray(item) && !isEmpty(item) && larger(item, limit)) {
        // `- ` takes the place of the first entry's indentation; the others sit under it.
        let first = true;
        for (const piece of block(item, indent + 2, limit)) {
          yield first ? `${' '.repeat(indent)}- ${piece.slice(indent + 2)}` : piece;
          first = false;
        }
      } else yield indented(dump([item], OPTIONS), indent);
    }
    return;
  }
  for (const [key, child] of Object.entries(value)) {
    if (isContainer(child) && !isEmpty(child) && larger(child, limit)) {
      // The key as js-yaml writes it (quoted when it must be).
      const line = dump({ [key]: null }, OPTIONS);
      yield `${' '.repeat(indent)}${line.slice(0, line.length - ' null\n'.length)}\n`;
      // A mapping's entries and a sequence's `- ` both sit two spaces in.
      yield* block(child, indent + 2, limit);
    } else yield indented(dump({ [key]: child }, OPTIONS), indent);
  }
}
