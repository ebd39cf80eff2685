/**
 * serve's flags for status writing (with --kube --status-lease): the Lease's
 * timing and the status write rate. Their defaults are those serve used
 * before they existed: client-go's leader election (15 s, 10 s, 2 s) and
 * STATUS_WRITE_RATE.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { LEASE_DEFAULTS, type LeaseTiming } from '../../control-plane/kube/status-lease-timing.js';
import { STATUS_WRITE_RATE } from '../../control-plane/kube/status-rate.js';

export interface StatusTimingFlags {
  statusLeaseDuration: number;
  statusRenewDeadline: number;
  statusRetryPeriod: number;
  statusWriteRate: number;
  statusWriteBurst: number;
}

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000 };

/** `500ms`, `2s`, `1.5m` -> milliseconds. */
export function parseDuration(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(value.trim());
  const ms = m ? Number(m[1]) * UNITS[m[2]!]! : NaN;
  if (!(ms >= 1)) throw new InvalidArgumentError('a duration such as 500ms, 15s or 1m');
  return ms;
}

function positive(value: string): number {
  const n = Number(value);
  if (!(n > 0) || !Number.isFinite(n)) throw new InvalidArgumentError('a number above 0');
  return n;
}

function atLeastOne(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number, at least 1');
  return n;
}

const seconds = (ms: number) => `${ms / 1000}s`;

const option = <T>(flags: string, description: string, parse: (v: string) => T, value: T, shown: string) =>
  new Option(flags, description).argParser(parse).default(value, shown);

export function addStatusOptions(command: Command): Command {
  return command
    .addOption(
      option(
        '--status-lease-duration <duration>',
        'with --status-lease: how long a Lease its holder does not renew keeps the other replicas from taking it',
        parseDuration,
        LEASE_DEFAULTS.leaseDurationMs,
        seconds(LEASE_DEFAULTS.leaseDurationMs),
      ),
    )
    .addOption(
      option(
        '--status-renew-deadline <duration>',
        'with --status-lease: how long the holder keeps trying to renew before it stops writing (below --status-lease-duration)',
        parseDuration,
        LEASE_DEFAULTS.renewDeadlineMs,
        seconds(LEASE_DEFAULTS.renewDeadlineMs),
      ),
    )
    .addOption(
      option(
        '--status-retry-period <duration>',
        'with --status-lease: how often a replica tries to take or renew the Lease',
        parseDuration,
        LEASE_DEFAULTS.retryPeriodMs,
        seconds(LEASE_DEFAULTS.retryPeriodMs),
      ),
    )
    .addOption(
      option(
        '--status-write-rate <per-second>',
        'with --status-lease: status writes per second at most, on average',
        positive,
        STATUS_WRITE_RATE.perSecond,
        String(STATUS_WRITE_RATE.perSecond),
      ),
    )
    .addOption(
      option(
        '--status-write-burst <n>',
        'with --status-lease: status writes sent at once before the rate applies',
        atLeastOne,
        STATUS_WRITE_RATE.burst,
        String(STATUS_WRITE_RATE.burst),
      ),
    );
}

const NAMES = [
  'statusLeaseDuration',
  'statusRenewDeadline',
  'statusRetryPeriod',
  'statusWriteRate',
  'statusWriteBurst',
] as const;

/** What is wrong with the flags as given, if anything (client-go's rules on the timing). */
export function statusFlagsProblem(
  flags: StatusTimingFlags & { statusLease?: string },
  command: Command,
): string | undefined {
  if (!flags.statusLease && NAMES.some((name) => command.getOptionValueSource(name) !== 'default'))
    return 'the --status-lease-duration, --status-renew-deadline, --status-retry-period and --status-write-* options go with --status-lease';
  if (flags.statusRenewDeadline >= flags.statusLeaseDuration)
    return `--status-renew-deadline (${seconds(flags.statusRenewDeadline)}) must be below --status-lease-duration (${seconds(flags.statusLeaseDuration)}): the holder must stop writing before the others may take the Lease`;
  if (flags.statusRenewDeadline <= flags.statusRetryPeriod * 1.2)
    return `--status-renew-deadline (${seconds(flags.statusRenewDeadline)}) must be above 1.2 times --status-retry-period (${seconds(flags.statusRetryPeriod)}), so the holder gets more than one try to renew`;
  return undefined;
}

export function statusTiming(flags: StatusTimingFlags): {
  timing: LeaseTiming;
  rate: { perSecond: number; burst: number };
} {
  return {
    timing: {
      leaseDurationMs: flags.statusLeaseDuration,
      renewDeadlineMs: flags.statusRenewDeadline,
      retryPeriodMs: flags.statusRetryPeriod,
    },
    rate: { perSecond: flags.statusWriteRate, burst: flags.statusWriteBurst },
  };
}
