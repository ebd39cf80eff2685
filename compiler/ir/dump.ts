/**
 * The IR as YAML, for debugging (`sluice compile --dump-ir`): what resolve
 * made of the inputs, before anything Envoy-specific. Where each value came
 * from (origins, field paths) is left out; secrets are shown as "<redacted>",
 * header values from Secrets as the Secret's name.
 */
import { dump } from 'js-yaml';
import type { Model } from './model.js';

const LEFT_OUT = new Set(['origin', 'lbHashAt', 'bodyAt']);
/** Passwords, keys and what stands for them (an API key, a password hash). */
const SECRET = new Set([
  'password',
  'privateKey',
  'keyPem',
  'apiKey',
  'hashedPassword',
  'clientSecret',
  'cipherKeys',
  'secretAccessKey',
  'sessionToken',
]);

export function dumpIr(model: Model): string {
  return dump(model, {
    lineWidth: -1,
    noRefs: true,
    replacer(this: unknown, key, value) {
      if (LEFT_OUT.has(key)) return undefined;
      // A header whose value is a Secret's entry (headerSecretRef) says which Secret instead.
      const secret = (this as { secret?: unknown }).secret;
      if (key === 'value' && typeof secret === 'string') return `<from Secret ${secret}>`;
      // A field path (a list) only places diagnostics; a route's or a redirect's `path` (an object or text) is data.
      if (key === 'path' && Array.isArray(value)) return undefined;
      if (SECRET.has(key)) return '<redacted>';
      return value;
    },
  });
}
