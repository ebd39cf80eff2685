/**
 * Calls `run` once per burst of `fire()` calls: after `quietMs` without a
 * new one, or, when `maxMs` is given, `maxMs` after the first of the burst,
 * whichever is first (a cluster's steady stream of changes still reaches
 * Envoy). Used for file events and for a cluster's watch events alike.
 */
export interface Coalescer {
  fire(): void;
  close(): void;
}

export function coalesce(run: () => void, quietMs: number, maxMs?: number): Coalescer {
  let quiet: NodeJS.Timeout | undefined;
  let longest: NodeJS.Timeout | undefined;
  let closed = false;
  const flush = () => {
    clearTimeout(quiet);
    clearTimeout(longest);
    quiet = longest = undefined;
    if (!closed) run();
  };
  return {
    fire() {
      if (closed) return;
      clearTimeout(quiet);
      quiet = setTimeout(flush, quietMs);
      if (maxMs !== undefined) longest ??= setTimeout(flush, maxMs);
    },
    close() {
      closed = true;
      clearTimeout(quiet);
      clearTimeout(longest);
    },
  };
}
