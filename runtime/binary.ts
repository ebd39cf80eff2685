/**
 * What every binary (`sluice serve`, `sluice-extauth`, `sluice-graphql`) does
 * the same way: opening its ports (a port it cannot open is one line naming
 * the flag and what to do), grpc-js's own log lines, a failed start (exit 1)
 * and the shutdown on SIGTERM / SIGINT (a log line, drain, exit 0).
 */
import * as grpc from '@grpc/grpc-js';
import { CommanderError, InvalidArgumentError, Option } from 'commander';
import { createRequire } from 'node:module';
import { format } from 'node:util';
import { pino, type Logger, type LoggerOptions } from 'pino';

/** A port that could not be opened; its message names the flag and says what to do. */
export class ListenError extends Error {}

function listenProblem(flag: string, host: string, port: number, err: unknown): string {
  // Node puts the errno in `code`; grpc-js only in the message ("No address added ... errors: [listen EADDRINUSE: ...]").
  const text = `${(err as NodeJS.ErrnoException).code ?? ''} ${(err as Error).message}`;
  const at = `${host}:${port}`;
  if (/EADDRINUSE/.test(text))
    return `${flag} ${port}: ${at} is already in use by another process; stop that process, or give ${flag} another port`;
  if (/EACCES/.test(text))
    return `${flag} ${port}: not allowed to listen on ${at} (ports below 1024 need privileges); give ${flag} a port from 1024 up`;
  if (/EADDRNOTAVAIL|ENOTFOUND|EAI_AGAIN/.test(text))
    return `--bind ${host}: not an address of this machine; give --bind one of its addresses (127.0.0.1, or 0.0.0.0 for all)`;
  return `${flag} ${port}: cannot listen on ${at}: ${(err as Error).message}`;
}

/** Runs `listen` (which opens `host:port`, the value of `flag`); a failure becomes a ListenError. */
export async function listenOn<T>(flag: string, host: string, port: number, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (err) {
    throw new ListenError(listenProblem(flag, host, port, err), { cause: err });
  }
}

export const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** `--log-format` of every binary; without it, logFormatFor chooses. */
export function logFormatOption(): Option {
  return new Option(
    '--log-format <format>',
    'log lines for a person (pretty) or a log collector (json, one object per line); default: pretty when stdout is a terminal, json otherwise',
  ).choices(LOG_FORMATS);
}

/** The format asked for, or pretty when a person is likely to read stdout (a terminal), JSON otherwise. */
export function logFormatFor(asked: LogFormat | undefined, stdoutIsTerminal: boolean): LogFormat {
  return asked ?? (stdoutIsTerminal ? 'pretty' : 'json');
}

/**
 * A binary's log on stdout, JSON or pretty (see logFormatFor). Written
 * synchronously, in this thread: pino's default writes in the background,
 * and its transports (pino-pretty's among them) in a worker thread, and
 * the lines logged just before an exit (`stopped`) were lost with the
 * process. pino-pretty formats each line here instead, loaded only then
 * (it costs about 0.1 s to load).
 */
export function stdoutLog(options: LoggerOptions, asked?: LogFormat): Logger {
  const stdout = pino.destination({ dest: 1, sync: true });
  const terminal = process.stdout.isTTY === true;
  if (logFormatFor(asked, terminal) === 'json') return pino(options, stdout);
  const { prettyFactory } = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  const pretty = prettyFactory({
    colorize: terminal && !('NO_COLOR' in process.env),
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
  });
  return pino(options, { write: (line: string) => stdout.write(pretty(line)) });
}

/**
 * grpc-js writes its own lines (`E No address added ...` on a busy port) to
 * stderr; they go to the binary's JSON log instead, so stderr holds only what
 * the binary itself says. Process-wide: the binaries call it, tests do not.
 */
export function logGrpcTo(logger: Logger): void {
  const child = logger.child({ component: 'grpc-js' });
  grpc.setLogger({
    error: (...args: unknown[]) => child.error(format(...args)),
    info: (...args: unknown[]) => child.info(format(...args)),
    debug: (...args: unknown[]) => child.debug(format(...args)),
  });
}

/** A start that failed (a port in use, a bad configuration): one line on stderr, exit 1. */
export function startFailed(name: string, err: unknown): never {
  console.error(`${name}: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}

/**
 * On the first SIGTERM or SIGINT: logs `shutting down: <draining>`, runs
 * `close` (which drains what is in flight), logs `stopped` and exits 0; 1 if
 * closing failed. `logger` is a stdoutLog, so the last lines are written.
 */
export function shutdownOnSignals(logger: Logger, draining: string, close: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `shutting down: ${draining}`);
    close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err: (err as Error).message }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

// Digits only: Number() would also take "1e3", "0x50" and " 80".
const digits = (v: string) => (/^\d{1,9}$/.test(v) ? Number(v) : NaN);

/** A sidecar's port flag: 0 (ephemeral) to 65535. */
export function portArg(v: string): number {
  const n = digits(v);
  if (!(n >= 0 && n <= 65535)) throw new InvalidArgumentError('not a port number');
  return n;
}

/** A parser of integer flags from 1 to `max`. */
export function integerUpTo(max: number): (v: string) => number {
  return (v) => {
    const n = digits(v);
    if (!(n >= 1 && n <= max)) throw new InvalidArgumentError(`not an integer from 1 to ${max}`);
    return n;
  };
}

/** Where a sidecar listens and where its configuration comes from (the options every sidecar's server takes). */
export interface SidecarPlace {
  /** The service's port (0: ephemeral). */
  port: number;
  adminPort: number;
  /** Address both servers listen on (`--bind`). */
  host: string;
  /** The configuration set's JSON file (`sluice compile -o`), or */
  config?: string;
  /** host:port of the xDS (ADS) server. */
  xds?: string;
  nodeId: string;
}

/** What a sidecar binary's main needs: its flags, its logger and its server. */
export interface SidecarBinary<Opts> {
  name: string;
  parseArgs(argv: string[]): Opts & { logFormat?: LogFormat };
  logger(format?: LogFormat): Logger;
  start(opts: Opts & { logger: Logger }): Promise<{ close(): Promise<void> }>;
  /** What `shutting down:` says is drained. */
  draining: string;
}

/** A sidecar's main: flags (usage errors exit 2, --help 0), its logger for grpc-js too, start, shutdown on signals. */
export function runSidecar<Opts>(binary: SidecarBinary<Opts>): void {
  const main = async (): Promise<void> => {
    let args;
    try {
      args = binary.parseArgs(process.argv.slice(2));
    } catch (err) {
      if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
      throw err;
    }
    const { logFormat, ...opts } = args;
    const logger = binary.logger(logFormat);
    logGrpcTo(logger);
    const running = await binary.start({ ...(opts as unknown as Opts), logger });
    shutdownOnSignals(logger, binary.draining, () => running.close());
  };
  main().catch((err: unknown) => startFailed(binary.name, err));
}
