/**
 * Calls `run` once per burst of `fire()` calls: after `quietMs` without a
 * new one, or, when `maxMs` is given, `maxMs` after the first of the burst,
 * whichever is first (a cluster's steady stream of changes still reaches
 * Envoy). Used for file events and for a cluster's watch events alike.
 *
 * With `leading`, a change that comes after a quiet period does not wait
 * for the burst to end: `run` is called as soon as the calls made in the
 * same turn of the event loop are in (one watch read delivers a burst's
 * events together), and the calls that follow within `quietMs` of that run
 * make one more run, as a burst. A watch event is a whole object, so it can
 * be compiled at once; a file event may be the first of an editor's write,
 * rename and chmod, so files wait for the quiet period.
 */
export interface Coalescer {
  fire(): void;
  close(): void;
}

export interface CoalesceTiming {
  quietMs: number;
  maxMs?: number;
  /** Run a change that follows a quiet period at once (see above). */
  leading?: boolean;
}

export function coalesce(run: () => void, timing: CoalesceTiming): Coalescer {
  const { quietMs, maxMs, leading = false } = timing;
  let quiet: NodeJS.Timeout | undefined;
  let longest: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  /** Until then, a call belongs to the burst of the last run: it waits for the quiet period. */
  let settledAt = 0;
  let closed = false;
  const flush = () => {
    clearTimeout(quiet);
    clearTimeout(longest);
    clearImmediate(immediate);
    quiet = longest = immediate = undefined;
    if (closed) return;
    run();
    settledAt = performance.now() + quietMs;
  };
  return {
    fire() {
      if (closed || immediate) return;
      const waiting = quiet !== undefined;
      if (leading && !waiting && performance.now() >= settledAt) {
        immediate = setImmediate(flush);
        return;
      }
      clearTimeout(quiet);
      quiet = setTimeout(flush, quietMs);
      if (maxMs !== undefined) longest ??= setTimeout(flush, maxMs);
    },
    close() {
      closed = true;
      clearTimeout(quiet);
      clearTimeout(longest);
      clearImmediate(immediate);
    },
  };
}
