import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { watchInputs } from './watch.js';
import { tempDir } from '../harness/temp-dir.js';

/** Calls of onChange, awaitable one at a time. */
function changes() {
  let wake: (() => void) | undefined;
  let count = 0;
  return {
    onChange: () => {
      count++;
      wake?.();
    },
    async next(): Promise<void> {
      const before = count;
      while (count === before) await new Promise<void>((r) => (wake = r));
    },
  };
}

test('a file renamed over (as editors save) keeps being watched, edit after edit', async () => {
  const dir = tempDir('watch');
  const file = path.join(dir, 'a.yaml');
  writeFileSync(file, '1');
  const c = changes();
  const w = watchInputs([dir], c.onChange, 10);
  try {
    for (const text of ['2', '3', '4']) {
      const seen = c.next();
      writeFileSync(`${file}.tmp`, text);
      renameSync(`${file}.tmp`, file);
      await seen;
    }
  } finally {
    w.close();
  }
});

test('a directory created after the start is watched too; a single-file path sees edits of that file', async () => {
  const dir = tempDir('watch');
  const c = changes();
  const w = watchInputs([dir], c.onChange, 10);
  try {
    let seen = c.next();
    mkdirSync(path.join(dir, 'sub'));
    await seen;
    seen = c.next();
    writeFileSync(path.join(dir, 'sub', 'b.yaml'), 'x');
    await seen;
  } finally {
    w.close();
  }

  const file = path.join(dir, 'only.yaml');
  writeFileSync(file, '1');
  const single = changes();
  const w2 = watchInputs([file], single.onChange, 10);
  try {
    const seen = single.next();
    writeFileSync(path.join(dir, 'sibling.yaml'), 'ignored');
    writeFileSync(file, '2');
    await seen;
  } finally {
    w2.close();
  }
});
