/** What keeps `serve`'s memory small over time: the malloc setting it runs with, and full collections when it goes quiet. */
import v8 from 'node:v8';
import vm from 'node:vm';
import type { ControlPlane } from './control.js';
import type { XdsServer } from './server/server.js';

/**
 * The glibc malloc setting `sluice serve` runs with (the Docker image, `npm
 * start` and the benchmarks set it; set it yourself when you start serve by
 * hand on Linux). Each xDS response is framed by grpc-js in a buffer of its
 * own, megabytes for a large first sync. glibc serves such buffers with mmap
 * and returns them on free, but its default raises the mmap threshold to the
 * size of the largest buffer freed (up to 32 MiB); from then on they come from
 * the heap, which keeps the pages. A fixed threshold keeps every large buffer
 * an mmap: RSS after 500 clients' first sync of 10,000 virtual hosts fell from
 * about 650 to 470 MiB (docs/xds.md).
 */
const SERVE_MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: '131072' } as const;

/** This process's environment with the malloc setting added for a server it starts; a value already set wins. */
export function serveEnvironment(): NodeJS.ProcessEnv {
  return { ...SERVE_MALLOC_ENV, ...process.env };
}

/**
 * V8's full garbage collection as a function. `serve` is started by a plain
 * `node`, so `--expose-gc` is set at run time; the function is taken from a
 * new context, where V8 installs it once the flag is set.
 */
export function fullCollection(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

/** Quiet time after the last activity before the first collection: the pushes of a compile and their ACKs are over well within it. */
const QUIET_MS = 2000;
/** Between the collections of one quiet spell. */
const SPACING_MS = 1000;
/**
 * Three: the first frees the recompile's garbage and the responses' buffers
 * (their memory goes back to the system as the sweeper finishes); V8 gives
 * back the heap it had grown to a step at a time, over the next ones.
 */
const COLLECTIONS = 3;
/** At most 1/20 (5%) of the time in these pauses, however often work comes. */
const PAUSE_SHARE = 20;

/**
 * Full collections when `serve` goes quiet. V8 collects its old generation
 * only when it nears a limit it raises as the heap grows, so after a
 * recompile and a push the process keeps the recompile's garbage and the
 * sent responses' buffers (freed only by a full collection) for as long as
 * nothing else asks for memory: at 10,000 VirtualServices and 500 clients,
 * about 200 MiB of RSS. Work (`activity()`) puts them off; a quiet spell
 * gets `COLLECTIONS` collections, each a pause of a few hundred
 * milliseconds while nothing is waiting.
 */
export class IdleCollector {
  /** Collections run so far. */
  collections = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Collections left in this quiet spell. */
  private left = 0;
  private lastActivity = 0;
  private lastRun = 0;
  private notBefore = 0;
  private closed = false;

  constructor(
    private readonly collect: () => void = fullCollection(),
    private readonly quietMs = QUIET_MS,
  ) {}

  /** Whether collections are still to come after the last activity. */
  get pending(): boolean {
    return this.left > 0;
  }

  /**
   * Work happened (a compile, a request, a push, a client came or went):
   * collect once it has been quiet for a while. Called for every request, so
   * it only notes the time; the one timer checks it when it fires.
   */
  activity(): void {
    if (this.closed) return;
    this.lastActivity = Date.now();
    this.left = COLLECTIONS;
    if (!this.timer) this.arm();
  }

  /** No more collections, whatever activity comes (streams closing as serve shuts down). */
  close(): void {
    this.closed = true;
    this.left = 0;
    clearTimeout(this.timer);
  }

  /** When the next collection may run: quiet since the last activity for the first of a spell, a spacing after the last one for the others; never before the pause share allows. */
  private due(): number {
    const after = this.left === COLLECTIONS ? this.lastActivity + this.quietMs : this.lastRun + SPACING_MS;
    return Math.max(after, this.notBefore);
  }

  private arm(): void {
    this.timer = setTimeout(() => this.fire(), Math.max(0, this.due() - Date.now()));
    // Never what keeps the process alive.
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    if (this.left === 0) return;
    // Activity since it was set: not quiet yet.
    if (Date.now() < this.due()) return this.arm();
    const start = performance.now();
    this.collect();
    this.collections++;
    this.lastRun = Date.now();
    this.notBefore = this.lastRun + (performance.now() - start) * PAUSE_SHARE;
    if (--this.left > 0) this.arm();
  }
}

/** Collections when `control` and `xds` have gone quiet: after compiles, requests (ACKs and NACKs among them), pushes, and clients coming and going. */
export function collectWhenQuiet(
  control: ControlPlane,
  xds: XdsServer,
  collector = new IdleCollector(),
): IdleCollector {
  const activity = () => collector.activity();
  control.on('compiled', activity);
  xds.on('request', activity).on('push', activity).on('connect', activity).on('disconnect', activity);
  return collector;
}
