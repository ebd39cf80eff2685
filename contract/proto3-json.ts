/**
 * Small rules of the proto3 JSON mapping that every reader of it needs: the
 * compiler's verifier, the wire codec and both sidecars' config parsers.
 */

/** The JSON name protoc derives from a field name: `user_dn_template` -> `userDnTemplate`. */
export function lowerCamel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * A field of a proto3 JSON object by its proto (snake_case) name: proto3
 * JSON parsers accept the original name and the lowerCamelCase JSON name.
 */
export function jsonField(o: Record<string, unknown>, snake: string): unknown {
  const v = o[snake];
  return v !== undefined ? v : o[lowerCamel(snake)];
}

const DURATION_RE = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/;

/** Generated configuration repeats a few durations ("15s") many times: parse each once. */
const durationCache = new Map<string, bigint | null>();

/** Duration JSON ("1.5s") to nanoseconds, or undefined if malformed. */
export function parseDuration(s: string): bigint | undefined {
  let n = durationCache.get(s);
  if (n === undefined) {
    const m = DURATION_RE.exec(s);
    if (m) {
      const nanos = BigInt(m[2]!) * 1_000_000_000n + BigInt((m[3] ?? '').padEnd(9, '0') || '0');
      n = m[1] ? -nanos : nanos;
    } else {
      n = null;
    }
    if (durationCache.size > 10_000) durationCache.clear(); // long-running processes: stay bounded
    durationCache.set(s, n);
  }
  return n ?? undefined;
}

/** Nanoseconds as Duration JSON: "1.5s", "-0.000000001s", "0s". */
export function formatDuration(n: bigint): string {
  const neg = n < 0n;
  const a = neg ? -n : n;
  const s = a / 1_000_000_000n;
  const frac = (a % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${s}${frac ? `.${frac}` : ''}s`;
}
