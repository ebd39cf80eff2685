/**
 * Header values that are Secrets' entries (headerSecretRef): explain reads
 * the compiled configuration, which carries them, and shows the Secret's
 * name in their place, in text and JSON alike.
 */
import { destinationOptions } from '../ir/destination-options.js';
import type { HeaderManipulationIR, Model } from '../ir/model.js';

/** `namespace/name` of the Secret by header (lower case) and value. */
export type SecretHeaderValues = ReadonlyMap<string, string>;

const keyOf = (header: string, value: string) => `${header.toLowerCase()}\n${value}`;

/** Every header value of the model that comes from a Secret. */
export function secretHeaderValues(model: Model): SecretHeaderValues {
  const found = new Map<string, string>();
  const add = (h: Pick<HeaderManipulationIR, 'requestAdd'> | undefined) => {
    for (const a of h?.requestAdd ?? []) if (a.secret) found.set(keyOf(a.key, a.value), a.secret);
  };
  for (const chain of model.gateways.flatMap((gw) => gw.chains))
    add(chain.http.earlyHeaders && { requestAdd: chain.http.earlyHeaders.add });
  for (const vh of model.virtualHosts) {
    add(vh.headers);
    for (const route of vh.routes) {
      add(route.options?.headers);
      for (const d of destinationOptions(route)) add(d.headers);
    }
  }
  return found;
}

/** `name: value` as explain shows a header it adds: a Secret's value as `<from Secret namespace/name>`. */
export function shownHeader(name: string, value: string, secrets: SecretHeaderValues): string {
  const secret = secrets.get(keyOf(name, value));
  return `${name}: ${secret ? `<from Secret ${secret}>` : value}`;
}
