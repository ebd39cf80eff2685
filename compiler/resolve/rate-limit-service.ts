/**
 * The rate limit service's side of global limits: how Envoy's filters reach
 * it (Gloo's Settings ratelimitServer) and its rules, per domain: custom
 * (Settings ratelimit), ingress (every ratelimitBasic) and solo.io (every
 * RateLimitConfig, each under its own generic_key so policies never share a
 * counter).
 */
import { fieldError, type Diagnostic, type FieldPath } from '../diagnostics.js';
import { compareText } from '../order.js';
import { SIDECAR_CLUSTERS, type UpstreamIR, type VirtualHostIR } from '../ir/model.js';
import type {
  DescriptorIR,
  RateLimitDomainIR,
  RateLimitServerIR,
  RateLimitServiceIR,
  RateLimitsIR,
} from '../ir/ratelimit.js';
import type { Ref } from '../kinds/resource.js';
import type { RateLimitConfigSpec } from '../kinds/rate-limit-config.js';
import type { SettingsSpec } from '../kinds/settings.js';
import type { Resource } from '../validate/validate.js';
import type { FindUpstream, ResourceIndex } from './index.js';
import { basicRule, configName, descriptorRule, setRule } from './rate-limits.js';

/** Gloo's default requestTimeout. */
const DEFAULT_TIMEOUT = '0.100s';

export function resolveRateLimitService(
  index: ResourceIndex,
  virtualHosts: readonly VirtualHostIR[],
  findUpstream: FindUpstream,
  use: (upstream: UpstreamIR, from: Resource, path: FieldPath) => void,
  diagnostics: Diagnostic[],
): RateLimitServiceIR | undefined {
  const limits: RateLimitsIR[] = virtualHosts.flatMap((vh) => [
    ...(vh.rateLimits ? [vh.rateLimits] : []),
    ...vh.routes.flatMap((r) => (r.options?.rateLimits ? [r.options.rateLimits] : [])),
  ]);
  const configs = index.all('RateLimitConfig');
  const allSettings = index.all('Settings');
  const settings = allSettings.length === 1 ? allSettings[0] : undefined;
  const spec = settings?.spec as SettingsSpec | undefined;
  const used = limits.some((l) => l.entries.length > 0);
  if (!used && !configs.length && !spec?.ratelimit) return undefined;
  if (allSettings.length > 1 && used) {
    diagnostics.push(
      fieldError(
        'resolve',
        allSettings[1]!.origin,
        ['metadata', 'name'],
        `is one of ${allSettings.length} Settings resources (${allSettings.map((s) => `${s.namespace}/${s.name}`).join(', ')}); Gloo reads one, and the rate limit server settings would be ambiguous`,
        'keep one Settings resource in the inputs',
      ),
    );
    return undefined;
  }
  const server = serverOf(settings, spec, findUpstream, use, diagnostics);
  if (!server) return undefined;

  const domains: RateLimitDomainIR[] = [];
  // ratelimitBasic: one rule tree per counter name (a route's ratelimitBasic reached through several matchers is one).
  const basic = new Map<string, DescriptorIR>();
  for (const l of limits) if (l.basic && !basic.has(l.basic.name)) basic.set(l.basic.name, basicRule(l.basic));
  if (basic.size)
    domains.push({
      domain: 'ingress',
      descriptors: [...basic.keys()].sort(compareText).map((k) => basic.get(k)!),
      setDescriptors: [],
      sources: [...basic.keys()].sort(compareText).map((k) => `ratelimitBasic of ${k}`),
    });
  if (spec?.ratelimit && (spec.ratelimit.descriptors?.length || spec.ratelimit.setDescriptors?.length))
    domains.push({
      domain: 'custom',
      descriptors: (spec.ratelimit.descriptors ?? []).map(descriptorRule),
      setDescriptors: (spec.ratelimit.setDescriptors ?? []).map((d) => setRule(d)),
      sources: [`Settings ${settings!.namespace}/${settings!.name}`],
    });
  const solo: RateLimitDomainIR = { domain: 'solo.io', descriptors: [], setDescriptors: [], sources: [] };
  for (const config of configs) {
    const raw = (config.spec as RateLimitConfigSpec).raw;
    const name = configName(config);
    if (raw.descriptors?.length)
      solo.descriptors.push({ key: 'generic_key', value: name, descriptors: raw.descriptors.map(descriptorRule) });
    for (const d of raw.setDescriptors ?? [])
      solo.setDescriptors.push(setRule(d, [{ key: 'generic_key', value: name }]));
    solo.sources.push(`RateLimitConfig ${config.namespace}/${config.name}`);
  }
  if (solo.descriptors.length || solo.setDescriptors.length) domains.push(solo);
  domains.sort((a, b) => compareText(a.domain, b.domain));
  return { server, domains };
}

function serverOf(
  settings: Resource | undefined,
  spec: SettingsSpec | undefined,
  findUpstream: FindUpstream,
  use: (upstream: UpstreamIR, from: Resource, path: FieldPath) => void,
  diagnostics: Diagnostic[],
): RateLimitServerIR | undefined {
  const s = spec?.ratelimitServer ?? {};
  let cluster: string = SIDECAR_CLUSTERS.ratelimit;
  if (s.ratelimitServerRef) {
    const path = ['spec', 'ratelimitServer', 'ratelimitServerRef'];
    const upstream = findUpstream(settings!, path, s.ratelimitServerRef as Ref);
    if (!upstream) return undefined;
    if (!upstream.http2) {
      diagnostics.push(
        fieldError(
          'resolve',
          settings!.origin,
          path,
          `Upstream ${upstream.namespace}/${upstream.name} does not speak HTTP/2, which gRPC needs`,
          `set useHttp2: true on Upstream ${upstream.namespace}/${upstream.name}`,
        ),
      );
      return undefined;
    }
    use(upstream, settings!, path);
    cluster = upstream.name;
  }
  return {
    cluster,
    sidecar: !s.ratelimitServerRef,
    timeout: s.requestTimeout ?? DEFAULT_TIMEOUT,
    denyOnFail: s.denyOnFail ?? false,
    beforeAuth: s.rateLimitBeforeAuth ?? false,
    xRateLimitHeaders: s.enableXRatelimitHeaders ?? false,
    ...(s.grpcService?.authority !== undefined ? { authority: s.grpcService.authority } : {}),
  };
}
