/**
 * Global rate limits in the IR: the descriptors Envoy sends for a virtual
 * host or route (Gloo's actions, resolved), and the rules the rate limit
 * service counts by (Gloo's descriptors, per domain). Envoy-agnostic shapes;
 * translate writes Envoy's rate_limits and the sluice.ratelimit.v1 rules.
 */

/** Gloo's three domains: ratelimitBasic's, Settings' (and ratelimit.rateLimits'), RateLimitConfigs'. */
export type RateLimitDomainName = 'ingress' | 'custom' | 'solo.io';

/** The Gloo options rate limits come from; a route's own replace its virtual host's, option by option. */
export type RateLimitOption =
  | 'ratelimitBasic'
  | 'ratelimit'
  | 'ratelimitEarly'
  | 'ratelimitRegular'
  | 'rateLimitConfigs'
  | 'rateLimitEarlyConfigs'
  | 'rateLimitRegularConfigs';

/** One entry of a descriptor, as Envoy makes it from the request (Gloo's Action). */
export type RateLimitActionIR =
  | { kind: 'sourceCluster' }
  | { kind: 'destinationCluster' }
  | { kind: 'remoteAddress' }
  | { kind: 'genericKey'; value: string }
  | { kind: 'requestHeaders'; header: string; key: string; skipIfAbsent: boolean }
  | { kind: 'headerValueMatch'; value: string; expectMatch: boolean; headers: RateLimitHeaderMatchIR[] }
  | {
      kind: 'metadata';
      key: string;
      metadataKey: string;
      path: string[];
      defaultValue?: string;
      source: 'DYNAMIC' | 'ROUTE_ENTRY';
    };

export interface RateLimitHeaderMatchIR {
  name: string;
  match:
    | { kind: 'exact' | 'regex' | 'prefix' | 'suffix'; value: string }
    | { kind: 'range'; start: number; end: number }
    | { kind: 'present'; present: boolean };
  invert: boolean;
}

/** One descriptor Envoy sends (one RateLimitActions): its domain and stage, and its entries in order. */
export interface RateLimitIR {
  option: RateLimitOption;
  domain: RateLimitDomainName;
  /** Sent before JWT, RBAC and ext auth. */
  early: boolean;
  actions: RateLimitActionIR[];
  /** Envoy's RateLimit.Override: the descriptor's limit, read from the request's dynamic metadata when there. */
  limitOverride?: { metadataKey: string; path: string[] };
}

/** A virtual host's or route's global limits. */
export interface RateLimitsIR {
  entries: RateLimitIR[];
  /** A route's options whose virtual host entries it takes as well as its own (Gloo's includeVhRateLimits). */
  includeVh?: RateLimitOption[];
  /** ratelimitBasic's rules (domain ingress), under a generic_key of `name`. */
  basic?: { name: string; authorized?: RateLimitRuleIR; anonymous?: RateLimitRuleIR };
}

export type RateLimitUnit = 'SECOND' | 'MINUTE' | 'HOUR' | 'DAY' | 'WEEK' | 'MONTH' | 'YEAR';

export interface RateLimitRuleIR {
  unit: RateLimitUnit;
  requestsPerUnit: number;
}

/** A tree rule (Gloo's Descriptor); no value: any value, each counted on its own. */
export interface DescriptorIR {
  key: string;
  value?: string;
  rateLimit?: RateLimitRuleIR;
  descriptors?: DescriptorIR[];
  weight?: number;
  alwaysApply?: boolean;
}

/** A set rule (Gloo's SetDescriptor). */
export interface SetDescriptorIR {
  simpleDescriptors: { key: string; value?: string }[];
  rateLimit: RateLimitRuleIR;
  alwaysApply?: boolean;
}

export interface RateLimitDomainIR {
  domain: RateLimitDomainName;
  descriptors: DescriptorIR[];
  setDescriptors: SetDescriptorIR[];
  /** Where each top-level rule comes from (`Kind ns/name`), for warnings and explain. */
  sources: string[];
}

/** How Envoy's rate limit filters reach the service (Gloo's Settings ratelimitServer). */
export interface RateLimitServerIR {
  /** sluice-ratelimit's cluster, or the cluster of the Upstream ratelimitServerRef names. */
  cluster: string;
  /** The sidecar (no ratelimitServerRef): its cluster comes with the output. */
  sidecar: boolean;
  /** Proto3 JSON duration; Gloo's default 100ms. */
  timeout: string;
  denyOnFail: boolean;
  beforeAuth: boolean;
  xRateLimitHeaders: boolean;
  authority?: string;
}

export interface RateLimitServiceIR {
  server: RateLimitServerIR;
  /** Domains with rules, in name order. */
  domains: RateLimitDomainIR[];
}
