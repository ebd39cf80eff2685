/**
 * Checks of a string's form beyond a regular expression, named by a schema's
 * `format` (./schema.ts). Each says what is wrong with the value and what to
 * write instead, so the error points at the field with file and line, before
 * any of it reaches Envoy or a sidecar. Validate registers them with ajv.
 */
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { codePoint } from '../diagnostics.js';
import { parseDuration } from '../../contract/proto3-json.js';
import { CIPHER_SUITES } from './tls-parameters.js';

export interface Format {
  /** Why `value` is refused, or undefined when it is fine. */
  problem(value: string): string | undefined;
  hint(value: string): string;
}

// Lone surrogates (\p{Cs}) are not text: protobuf would encode them as U+FFFD, not what was written.
const CONTROL = /[\p{Cc}\p{Zl}\p{Zp}\p{Cs}]/u;
/** Controls plus format characters (bidi overrides, zero-width, BOM): invisible in an editor and in logs. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}\p{Cn}]/u;

function characterProblem(value: string, forbidden: RegExp): string | undefined {
  const c = forbidden.exec(value)?.[0];
  if (c === undefined) return undefined;
  return CONTROL.test(c)
    ? `contains the control character ${codePoint(c)}`
    : `contains the invisible character ${codePoint(c)}`;
}

const NON_ASCII = /[^\x00-\x7f]/;

/** Envoy's domain forms: `*`, a name, a name with a leading `*` (suffix match) or a trailing `*` (prefix match), each with an optional `:port`. */
function domainProblem(value: string): string | undefined {
  const chars = characterProblem(value, INVISIBLE);
  if (chars) return chars;
  if (/\s/.test(value)) return 'contains whitespace';
  if (NON_ASCII.test(value))
    return 'is not ASCII: Envoy compares the Host header byte for byte, and clients send an internationalized name in its IDNA (punycode) form';
  if (value === '*') return undefined;
  const [, host, port] = /^(.*?)(?::(\d+))?$/.exec(value)!;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return `has port ${port}, outside 1-65535`;
  if (host.startsWith('[')) return /^\[[0-9A-Fa-f:.]+\]$/.test(host) ? undefined : 'is not a bracketed IPv6 address';
  const stars = host.split('*').length - 1;
  if (stars > 1) return 'has more than one "*"';
  if (stars === 1 && !host.startsWith('*') && !host.endsWith('*'))
    return 'has a "*" in the middle: Envoy matches a wildcard only at the start (*.example.com) or the end (example.*)';
  if (!/^[A-Za-z0-9._*-]+$/.test(host))
    return 'may hold only letters, digits, "-", "." and "_", with one "*" at the start or the end';
  const name = host.replace(/\.$/, '');
  if (name.length > 253) return `is ${name.length} characters long; a domain name has at most 253`;
  const labels = name.split('.');
  if (labels.some((l) => l === '')) return 'has an empty label (a leading "." or "..")';
  if (labels.some((l) => l.length > 63)) return 'has a label longer than 63 characters';
  return undefined;
}

/** A request path as clients send it: ASCII, percent-encoded, no spaces or controls. */
function pathProblem(value: string): string | undefined {
  const chars = characterProblem(value, INVISIBLE);
  if (chars) return chars;
  if (/\s/.test(value)) return 'contains whitespace, which a request path never holds';
  if (NON_ASCII.test(value)) return 'is not ASCII: clients send a path percent-encoded, so it would never match';
  return undefined;
}

/** A network address: an IP address or a DNS name (translate picks a STATIC or a DNS cluster by this form). */
function hostProblem(value: string): string | undefined {
  const chars = characterProblem(value, INVISIBLE);
  if (chars) return chars;
  if (isIP(value) !== 0) return undefined;
  if (/^[\d.]+$/.test(value)) return 'is not an IPv4 address (four numbers from 0 to 255)';
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?$/.test(value)) return 'is neither an IP address nor a DNS name';
  return undefined;
}

export const FORMATS: Record<string, Format> = {
  domain: {
    problem: domainProblem,
    hint: (value) => {
      if (!NON_ASCII.test(value) || INVISIBLE.test(value) || /\s/.test(value))
        return 'e.g. api.example.com, *.example.com, api.example.com:8080 or *';
      const ascii = domainToASCII(value);
      return ascii && !domainProblem(ascii)
        ? `write its IDNA form "${ascii}"`
        : 'write the IDNA (punycode) form of the name, e.g. xn--bcher-kva.example for bücher.example';
    },
  },
  'path-prefix': {
    problem: pathProblem,
    hint: (value) =>
      pathProblem(value)?.startsWith('contains the')
        ? 'remove the character'
        : `percent-encode it: "${encodeURI(value)}"`,
  },
  host: { problem: hostProblem, hint: () => 'e.g. 10.0.0.7 or users.internal' },
  // A proto3 JSON duration Envoy needs above zero (intervals, timeouts of upstream settings).
  'positive-duration': {
    problem: (value) => {
      const nanos = parseDuration(value);
      return nanos === undefined ? 'is not a duration' : nanos <= 0n ? 'must be more than 0s' : undefined;
    },
    hint: () => 'write a number with a unit, e.g. "5s", "0.250s", "250ms" or "1m30s"',
  },
  // A proto3 JSON duration where 0s means "none" (an idle timeout turned off).
  'non-negative-duration': {
    problem: (value) => {
      const nanos = parseDuration(value);
      return nanos === undefined ? 'is not a duration' : nanos < 0n ? 'must not be negative' : undefined;
    },
    hint: () => 'write a number with a unit, e.g. "5s", "0.250s", "250ms" or "1m30s"; "0s" turns it off',
  },
  // A TLS 1.2 cipher suite BoringSSL knows, or an equal-preference group of them: Envoy refuses others.
  'cipher-suite': {
    problem: (value) => {
      const names = /^\[.*\]$/.test(value) ? value.slice(1, -1).split('|') : [value];
      const unknown = names.find((n) => !(CIPHER_SUITES as readonly string[]).includes(n));
      if (unknown === undefined) return undefined;
      return names.length > 1
        ? `names ${JSON.stringify(unknown)}, which is not a cipher suite Envoy knows`
        : 'is not a cipher suite Envoy knows';
    },
    hint: () => `use BoringSSL's names: ${CIPHER_SUITES.join(', ')}; or a group of them, "[A|B]"`,
  },
  // Names and values copied into Envoy's or a sidecar's configuration: one line, no control characters.
  'single-line': {
    problem: (value) => characterProblem(value, CONTROL),
    hint: () => 'remove the character; if it came from a copy and paste, retype the value',
  },
};
