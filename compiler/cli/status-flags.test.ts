/** serve's status flags: durations, defaults as before they existed, and client-go's rules on the Lease timing. */
import { Command } from 'commander';
import { LEASE_DEFAULTS } from '../../control-plane/kube/status-lease-timing.js';
import { STATUS_WRITE_RATE } from '../../control-plane/kube/status-rate.js';
import {
  addStatusOptions,
  parseDuration,
  statusFlagsProblem,
  statusTiming,
  type StatusTimingFlags,
} from './status-flags.js';

function parsed(args: string[]) {
  const command = addStatusOptions(new Command().exitOverride().option('--status-lease <name>'));
  command.parse(args, { from: 'user' });
  const flags = command.opts<StatusTimingFlags & { statusLease?: string }>();
  return { flags, problem: statusFlagsProblem(flags, command) };
}

test('durations in ms, s or m', () => {
  expect(parseDuration('500ms')).toBe(500);
  expect(parseDuration('15s')).toBe(15_000);
  expect(parseDuration('1.5m')).toBe(90_000);
  for (const bad of ['15', '0s', 'soon', '-1s']) expect(() => parseDuration(bad)).toThrow('a duration such as');
});

test('without the flags: the Lease timing and write rate serve used before', () => {
  const { flags, problem } = parsed(['--status-lease', 'sluice-status']);
  expect(problem).toBeUndefined();
  expect(statusTiming(flags)).toEqual({ timing: LEASE_DEFAULTS, rate: { ...STATUS_WRITE_RATE } });
});

test('given: used; checked as client-go checks its leader election', () => {
  const { flags, problem } = parsed([
    '--status-lease=s',
    '--status-lease-duration=30s',
    '--status-renew-deadline=20s',
    '--status-retry-period=4s',
    '--status-write-rate=2.5',
    '--status-write-burst=5',
  ]);
  expect(problem).toBeUndefined();
  expect(statusTiming(flags)).toEqual({
    timing: { leaseDurationMs: 30_000, renewDeadlineMs: 20_000, retryPeriodMs: 4_000 },
    rate: { perSecond: 2.5, burst: 5 },
  });
  expect(parsed(['--status-lease=s', '--status-renew-deadline=15s']).problem).toMatch(
    /^--status-renew-deadline \(15s\) must be below --status-lease-duration \(15s\)/,
  );
  expect(parsed(['--status-lease=s', '--status-retry-period=9s']).problem).toMatch(
    /^--status-renew-deadline \(10s\) must be above 1\.2 times --status-retry-period \(9s\)/,
  );
  expect(parsed(['--status-write-rate=3']).problem).toMatch(/go with --status-lease$/);
  expect(() => parsed(['--status-lease=s', '--status-write-burst=0'])).toThrow('a whole number, at least 1');
});
