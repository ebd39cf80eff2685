/**
 * A child process's output, read to its end. 'exit' fires when the process
 * is reaped, which can come before the last of its output has been read (a
 * write still in the pipe on a busy machine, or a process it started still
 * holding the pipe open); 'close' fires only after every output stream has
 * ended. So a test reads what a child printed only once `ended` resolves.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface ChildOutput {
  /** What it has printed so far (for a process still running). */
  stdout(): string;
  stderr(): string;
  /** Its exit code and signal, and everything it printed: after 'close', not 'exit'. */
  ended: Promise<Ended>;
}

/** Collects `child`'s stdout and stderr (those that are pipes) from now on; call it right after spawn. */
export function childOutput(child: ChildProcess): ChildOutput {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const ended = once(child, 'close').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
    stdout,
    stderr,
  }));
  // A test that never awaits it (it killed the child) must not see an unhandled rejection from 'error'.
  ended.catch(() => undefined);
  return { stdout: () => stdout, stderr: () => stderr, ended };
}
