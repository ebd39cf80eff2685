/** The rate limit service's rules of one domain as `sluice.ratelimit.v1.RateLimitDomain` (contract/proto/sluice/ratelimit/v1/ratelimit.proto). */
import type { DescriptorIR, RateLimitDomainIR, RateLimitRuleIR, SetDescriptorIR } from '../ir/ratelimit.js';
import type { Json } from './output.js';

const rateLimit = (r: RateLimitRuleIR): Json => ({ unit: r.unit, requests_per_unit: r.requestsPerUnit });

function descriptor(d: DescriptorIR): Json {
  return {
    key: d.key,
    ...(d.value !== undefined ? { value: d.value } : {}),
    ...(d.rateLimit ? { rate_limit: rateLimit(d.rateLimit) } : {}),
    ...(d.descriptors?.length ? { descriptors: d.descriptors.map(descriptor) } : {}),
    ...(d.weight ? { weight: d.weight } : {}),
    ...(d.alwaysApply ? { always_apply: true } : {}),
  };
}

function setDescriptor(d: SetDescriptorIR): Json {
  return {
    simple_descriptors: d.simpleDescriptors.map((s) => ({
      key: s.key,
      ...(s.value !== undefined ? { value: s.value } : {}),
    })),
    rate_limit: rateLimit(d.rateLimit),
    ...(d.alwaysApply ? { always_apply: true } : {}),
  };
}

export function rateLimitDomain(d: RateLimitDomainIR): Json {
  return {
    domain: d.domain,
    ...(d.descriptors.length ? { descriptors: d.descriptors.map(descriptor) } : {}),
    ...(d.setDescriptors.length ? { set_descriptors: d.setDescriptors.map(setDescriptor) } : {}),
  };
}
