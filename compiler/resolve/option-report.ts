/** How the resolvers of options report a field's error, and the option values several of them read (durations, token buckets). */
import { parseDuration } from '../../contract/proto3-json.js';
import { fieldError, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import type { TokenBucketIR } from '../ir/model.js';
import type { TokenBucketSpec } from '../kinds/rate-limit.js';
import type { ExtrasReport } from './route-extras.js';

export class OptionReport implements ExtrasReport {
  ok = true;
  constructor(
    private readonly origin: Origin,
    private readonly diagnostics: Diagnostic[],
  ) {}

  error(path: FieldPath, message: string, hint?: string): void {
    this.ok = false;
    this.diagnostics.push(fieldError('resolve', this.origin, path, message, hint));
  }

  /** A duration as proto3 JSON writes it, at least `min` nanoseconds; undefined after an error. */
  duration(
    value: string,
    path: FieldPath,
    min = 0n,
    hint = 'write a number with a unit, e.g. "15s", "0.250s", "250ms" or "1m30s"',
  ): string | undefined {
    const nanos = parseDuration(value);
    if (nanos === undefined || nanos < min) {
      this.error(
        path,
        nanos === undefined
          ? `"${value}" is not a duration`
          : `"${value}" is too short (${min === 1n ? 'it must be more than 0s' : `at least ${Number(min) / 1e6} ms`})`,
        hint,
      );
      return undefined;
    }
    return value;
  }
}

/** Gloo's TokenBucket: tokensPerFill unset is 1, fillInterval unset is 1s and at least 50 ms (Envoy's floor). */
export function tokenBucket(spec: TokenBucketSpec, path: FieldPath, report: OptionReport): TokenBucketIR {
  const fillInterval =
    spec.fillInterval === undefined
      ? '1s'
      : report.duration(
          spec.fillInterval,
          [...path, 'fillInterval'],
          50_000_000n,
          'write at least "0.050s": Envoy refills a bucket at most every 50 ms',
        );
  return { maxTokens: spec.maxTokens, tokensPerFill: spec.tokensPerFill ?? 1, fillInterval: fillInterval ?? '1s' };
}
