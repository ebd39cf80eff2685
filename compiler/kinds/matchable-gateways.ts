/**
 * Gloo's MatchableHttpGateway and MatchableTcpGateway
 * (matchable_http_gateway.proto, matchable_tcp_gateway.proto): a filter chain
 * another team owns, which a hybrid Gateway takes in with
 * delegatedHttpGateways / delegatedTcpGateways. Each compiles to the chain a
 * matchedGateway with the same matcher and gateway would.
 */
import type { Static } from '@sinclair/typebox';
import { httpGateway, matcherFields, passthroughCipherSuites, tcpGateway } from './gateway.js';
import { note } from './gloo.js';
import { kind } from './resource.js';
import { object } from './schema.js';

const matchableHttpGatewaySpec = object(
  {
    matcher: note(object(matcherFields), 'none: every connection (a catch-all, at most one per Gateway)'),
    httpGateway,
  },
  ['httpGateway'],
);

const matchableTcpGatewaySpec = object(
  {
    matcher: note(
      object({ ...matcherFields, passthroughCipherSuites }),
      'sourcePrefixRanges only: the TCP hosts carry SNI and TLS in their own sslConfig',
    ),
    tcpGateway,
  },
  ['tcpGateway'],
);

export const MATCHABLE_HTTP_GATEWAY = kind(
  'gateway.gateway.example/v1',
  'MatchableHttpGateway',
  matchableHttpGatewaySpec,
  'gateway.solo.io/v1',
);
export const MATCHABLE_TCP_GATEWAY = kind(
  'gateway.gateway.example/v1',
  'MatchableTcpGateway',
  matchableTcpGatewaySpec,
  'gateway.solo.io/v1',
);

export type MatchableHttpGatewaySpec = Static<typeof matchableHttpGatewaySpec>;
export type MatchableTcpGatewaySpec = Static<typeof matchableTcpGatewaySpec>;
