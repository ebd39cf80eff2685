/**
 * Flow control: what bounds the memory a push takes, whatever the clients
 * do. Each client gets its own copy of a response (megabytes for a large
 * first sync), held until its HTTP/2 stream takes it; a client that stopped
 * reading would otherwise hold every response sent to it.
 * - per stream: past WRITE_BUDGET unflushed bytes, its next response waits;
 *   what changes meanwhile goes out merged once the bytes drain;
 * - per server: a snapshot change is pushed one stream per turn of the event
 *   loop, and past PUSH_BUDGET unflushed bytes of all streams the pushes wait
 *   for writes to complete.
 */

/** Unflushed bytes past which a stream's next response waits (one large response always goes). */
const WRITE_BUDGET = 1024 * 1024;
/** Unflushed bytes of all streams past which scheduled pushes wait (one large response always goes): each client gets its own copy of a response. */
const PUSH_BUDGET = 64 * 1024 * 1024;
const PUSH_HOLD_MS = 1000;

/** A stream, as flow control sees it: something to push the current snapshot to. */
export interface Pushable {
  /** Sends each subscribed type what is due, in ADS order. */
  pushAll(): void;
}

/** The server's side: scheduled pushes and the unflushed bytes of all streams. */
export class PushQueue {
  /** Streams with a snapshot change to push, drained one stream per turn of the event loop. */
  private readonly pending = new Set<Pushable>();
  private draining = false;
  /** Bytes written to all streams and not yet taken by HTTP/2: scheduled pushes wait past PUSH_BUDGET. */
  private unflushedBytes = 0;

  /**
   * Pushes a snapshot change to `stream` later, one stream per turn of the
   * event loop: setting a snapshot returns at once, and a snapshot's pushes
   * to many clients (each a copy of a response that may be megabytes) leave
   * room for reading ACKs, the file watcher and the next compile in between.
   * Repeated changes before its turn push once.
   */
  schedule(stream: Pushable): void {
    this.pending.add(stream);
    if (this.draining) return;
    this.draining = true;
    setImmediate(this.drain);
  }

  /** Whether responses written and not yet taken by HTTP/2 have reached the push budget. */
  overBudget(): boolean {
    return this.unflushedBytes >= PUSH_BUDGET;
  }

  /** Bytes handed to a stream (positive) or taken by HTTP/2 (negative). */
  unflushed(bytes: number): void {
    this.unflushedBytes += bytes;
    if (bytes < 0 && !this.draining && this.pending.size && this.unflushedBytes < PUSH_BUDGET) {
      this.draining = true;
      setImmediate(this.drain);
    }
  }

  private readonly drain = (): void => {
    const next = this.pending.values().next();
    // Past the budget, the next push waits for a write to complete (unflushed): memory stays bounded whatever the number of clients.
    if (next.done || this.unflushedBytes >= PUSH_BUDGET) {
      this.draining = false;
      return;
    }
    this.pending.delete(next.value);
    next.value.pushAll();
    setImmediate(this.drain);
  };
}

/** One stream's side: its responses not yet taken by its HTTP/2 stream. */
export class StreamWrites {
  /** Bytes handed to the call whose write has not completed. */
  unflushed = 0;
  /** A push waited for unflushed bytes; pushAll again once they drain. */
  private deferred = false;

  constructor(
    private readonly stream: Pushable,
    private readonly queue: PushQueue,
  ) {}

  /**
   * Whether a response must wait. Past WRITE_BUDGET unflushed bytes (a
   * client that stopped reading, or ACKs what it never read) it waits; what
   * changes meanwhile goes out merged once the bytes drain.
   */
  blocked(): boolean {
    if (this.unflushed >= WRITE_BUDGET) {
      this.deferred = true;
      return true;
    }
    // Past the server's budget (hundreds of clients subscribing at once, each to megabytes), the response waits its turn with the scheduled pushes: memory stays bounded.
    if (this.queue.overBudget()) {
      this.queue.schedule(this.stream);
      return true;
    }
    return false;
  }

  /** Counts `bytes` until `write` calls back: grpc-js does once the HTTP/2 stream has taken the message, which flow control delays for a client that does not read. */
  send(bytes: number, write: (written: () => void) => void): void {
    this.unflushed += bytes;
    // Counted against the server's push budget until written, or for at most PUSH_HOLD_MS: a client that stopped reading (or a stream that died) holds up the others' pushes only that long.
    this.queue.unflushed(bytes);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      clearTimeout(hold);
      this.queue.unflushed(-bytes);
    };
    const hold = setTimeout(release, PUSH_HOLD_MS).unref();
    write(() => {
      release();
      this.unflushed -= bytes;
      if (this.deferred && this.unflushed < WRITE_BUDGET) {
        this.deferred = false;
        this.stream.pushAll();
      }
    });
  }
}
