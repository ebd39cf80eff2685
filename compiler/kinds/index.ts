/**
 * Every kind Sluice reads, one definition each (./<kind>.ts): what ajv
 * checks (./accepted.ts), the static types resolve reads, and for Gloo's
 * kinds the compatibility of every field (./gloo.ts), from which the API
 * group aliases, the refusals validate reports first and
 * docs/gloo-compatibility.md all come. Definitions import nothing from the
 * compiler's stages.
 */
import { AUTH_CONFIG } from './auth-config.js';
import { GATEWAY } from './gateway.js';
import { REASONS } from './gloo.js';
import { GRAPHQL_API } from './graphql-api.js';
import { MATCHABLE_HTTP_GATEWAY, MATCHABLE_TCP_GATEWAY } from './matchable-gateways.js';
import { ENDPOINT_SLICE, POD, SECRET, SERVICE } from './kubernetes.js';
import { ROUTE_OPTION, VIRTUAL_HOST_OPTION } from './option-resources.js';
import { RATE_LIMIT_CONFIG } from './rate-limit-config.js';
import { REQUEST_TEST } from './request-test.js';
import { SETTINGS } from './settings.js';
import type { KindDefinition, RefusedKind } from './resource.js';
import { UPSTREAM, UPSTREAM_GROUP } from './upstream.js';
import { ROUTE_TABLE, VIRTUAL_SERVICE } from './virtual-service.js';

export type { KindDefinition, RefusedKind } from './resource.js';
export { REQUEST_TEST };

/** The kinds validate accepts, in the order an "unknown kind" error lists them. */
export const KINDS: readonly KindDefinition[] = [
  VIRTUAL_SERVICE,
  ROUTE_TABLE,
  GATEWAY,
  AUTH_CONFIG,
  UPSTREAM,
  UPSTREAM_GROUP,
  GRAPHQL_API,
  RATE_LIMIT_CONFIG,
  SERVICE,
  SECRET,
  ENDPOINT_SLICE,
  POD,
  SETTINGS,
  VIRTUAL_HOST_OPTION,
  ROUTE_OPTION,
  MATCHABLE_HTTP_GATEWAY,
  MATCHABLE_TCP_GATEWAY,
  // Request tables for `sluice test`: validated here, ignored by resolve.
  REQUEST_TEST,
];

const gateway = (kind: string, reason: string, instead: string): RefusedKind => ({
  kind,
  apiVersion: 'gateway.gateway.example/v1',
  glooApiVersion: 'gateway.solo.io/v1',
  refused: { reason, instead },
});
const gloo = (kind: string, reason: string, instead: string): RefusedKind => ({
  kind,
  apiVersion: 'gloo.gateway.example/v1',
  glooApiVersion: 'gloo.solo.io/v1',
  refused: { reason, instead },
});
const listenerOptions = 'listener option resources are not read';

/** Kinds a Gloo export carries that Sluice refuses as a whole, each with the reason: never "unknown kind". */
export const REFUSED_KINDS: readonly RefusedKind[] = [
  gateway('HttpListenerOption', listenerOptions, "write the settings in the Gateway's httpGateway.options"),
  gateway('ListenerOption', listenerOptions, "write the settings in the Gateway's options"),
  gloo(
    'Proxy',
    "a Proxy is what Gloo's gateway controller writes from Gateways and VirtualServices, and Sluice compiles those itself",
    'leave Proxy resources out of the inputs',
  ),
];

/** Gloo's API groups -> Sluice's: the same kinds under either name, with identical output. */
export const GLOO_API_ALIASES: Readonly<Record<string, string>> = Object.fromEntries(
  [...KINDS, ...REFUSED_KINDS].flatMap((k) => (k.glooApiVersion ? [[k.glooApiVersion, k.apiVersion]] : [])),
);

/** The definition of a kind under Sluice's apiVersion. */
export function definitionOf(apiVersion: string, kind: string): KindDefinition | undefined {
  return KINDS.find((k) => k.apiVersion === apiVersion && k.kind === kind);
}

/** The kind Sluice refuses as a whole that a document names, under Sluice's or Gloo's group. */
export function refusedKind(apiVersion: string, kind: string): RefusedKind | undefined {
  return REFUSED_KINDS.find((k) => k.kind === kind && (k.apiVersion === apiVersion || k.glooApiVersion === apiVersion));
}
