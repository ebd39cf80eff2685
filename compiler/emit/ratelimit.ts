/**
 * The rate limit service's rules as files: `ratelimit.json` (a
 * sluice.ratelimit.v1.RateLimitDomainSet, what sluice-ratelimit reads with
 * --config) and, for a team that runs envoyproxy/ratelimit instead, its own
 * YAML, one `envoyproxy-ratelimit.<domain>.yaml` per domain. That format has
 * no set rules, weights nor alwaysApply: what a domain uses of them is left
 * out of its YAML, said at the top of the file and by `gaps` (which
 * `sluice compile -o` prints as warnings).
 */
import type { Json, XdsSet } from '../translate/output.js';
import { yamlPieces } from './yaml.js';

type FileText = Iterable<string> & { secret?: boolean };

/** envoyproxy/ratelimit's descriptor: lower-case units, no weight or alwaysApply. */
function envoyproxyDescriptor(d: Json): Json {
  const rl = d.rate_limit as Json | undefined;
  return {
    key: d.key,
    ...(d.value !== undefined ? { value: d.value } : {}),
    ...(rl ? { rate_limit: { unit: String(rl.unit).toLowerCase(), requests_per_unit: rl.requests_per_unit } } : {}),
    ...(d.descriptors ? { descriptors: (d.descriptors as Json[]).map(envoyproxyDescriptor) } : {}),
  };
}

/** What a domain uses that envoyproxy/ratelimit's format cannot say. */
export function gaps(domain: Json): string[] {
  const out: string[] = [];
  const sets = (domain.set_descriptors as Json[] | undefined)?.length ?? 0;
  if (sets) out.push(`${sets} set descriptor(s) (setDescriptors): no set rule is counted`);
  const walk = (list: Json[] | undefined, top: boolean): void => {
    for (const d of list ?? []) {
      if (top && d.weight !== undefined)
        out.push(`weight ${String(d.weight)} of rule ${String(d.key)}: every matching rule counts`);
      if (top && d.always_apply) out.push(`alwaysApply of rule ${String(d.key)}: every matching rule counts anyway`);
      walk(d.descriptors as Json[] | undefined, false);
    }
  };
  walk(domain.descriptors as Json[] | undefined, true);
  return out;
}

/** The warnings of every domain whose YAML drops something. */
export function envoyproxyGaps(set: XdsSet): string[] {
  return [...set.rateLimitDomains.values()].flatMap((d) =>
    gaps(d).map((g) => `envoyproxy-ratelimit.${String(d.domain)}.yaml: envoyproxy/ratelimit has no ${g}`),
  );
}

function* withHeader(header: string[], pieces: Iterable<string>): Generator<string> {
  for (const line of header) yield `# ${line}\n`;
  yield* pieces;
}

export function rateLimitFiles(set: XdsSet, json: (value: unknown) => FileText): Record<string, FileText> {
  if (set.rateLimitDomains.size === 0) return {};
  const files: Record<string, FileText> = { 'ratelimit.json': json({ domains: [...set.rateLimitDomains.values()] }) };
  for (const domain of set.rateLimitDomains.values()) {
    const dropped = gaps(domain);
    const header = [
      `envoyproxy/ratelimit configuration of domain ${String(domain.domain)}, compiled by sluice.`,
      ...dropped.map((g) => `Not expressible here, left out: ${g}.`),
    ];
    const yaml = {
      domain: domain.domain,
      descriptors: ((domain.descriptors as Json[] | undefined) ?? []).map(envoyproxyDescriptor),
    };
    files[`envoyproxy-ratelimit.${String(domain.domain)}.yaml`] = {
      [Symbol.iterator]: () => withHeader(header, yamlPieces(yaml)),
    };
  }
  return files;
}
