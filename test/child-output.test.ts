/**
 * harness/child-output.ts: what a child printed is read after 'close'.
 * Reading it at 'exit' loses output whenever the last of it is still on its
 * way; here that is certain, not left to the machine's load: the last line
 * is written by a process the child started, after the child has exited
 * (read at 'exit', the output lacks it).
 */
import { spawn } from 'node:child_process';
import { childOutput } from '../harness/child-output.js';

test('the last line, written after the child exited by a process it started, is in the output', async () => {
  // The background shell waits until its parent is gone, then writes to the pipe it inherited.
  const child = spawn(
    'sh',
    [
      '-c',
      'parent=$$; (while kill -0 "$parent" 2>/dev/null; do sleep 0.01; done; echo last >&2) & echo first >&2; exit 3',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const { code, stderr } = await childOutput(child).ended;
  expect([code, stderr]).toEqual([3, 'first\nlast\n']);
});
