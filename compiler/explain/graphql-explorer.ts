/**
 * What sluice-graphql answers a browser's GET on a GraphQL API's path: the
 * explorer (GraphiQL) page or one of its assets where the compiled API
 * enables it, the GraphQL answer otherwise. The rule is the sidecar's own
 * (contract/graphql-explorer.ts); the API is read from the compiled APIs.
 */
import { EXPLORER_ASSETS, explorerRequestOf } from '../../contract/graphql-explorer.js';
import { headerValue, type HttpRequest } from '../envoy/request.js';
import type { GatewayConfig } from './config.js';
import type { Outcome } from './model.js';

export interface ExplorerVerdict {
  /** A line for the destination step. */
  detail: string;
  /** sluice-graphql's own answer, when it is not a GraphQL one. */
  outcome?: Outcome;
}

/** undefined: not a request for the explorer (or no such compiled API: the destination step says so). */
export function explorerVerdict(api: string, config: GatewayConfig, req: HttpRequest): ExplorerVerdict | undefined {
  const wanted = explorerRequestOf(req.method, req.path, headerValue(req, 'accept'));
  const compiled = config.graphqlApis.get(api);
  if (!wanted || !compiled) return undefined;
  if (compiled.explorer !== true)
    return {
      detail: `a browser's GET for the explorer, which ${api} does not enable (options.explorer.enabled): sluice-graphql answers it as GraphQL over HTTP (400 without a query)`,
    };
  const by = 'sluice-graphql';
  if ('page' in wanted)
    return {
      detail: `a browser's GET (Accept names text/html, no query parameter): sluice-graphql answers with the GraphQL explorer (GraphiQL) of ${api}, its assets and queries on this same path`,
      outcome: {
        status: 200,
        body: 'the GraphQL explorer page',
        headers: { 'content-type': 'text/html; charset=utf-8' },
        by,
      },
    };
  if (!(EXPLORER_ASSETS as readonly string[]).includes(wanted.asset))
    return {
      detail: `explorer asset ${JSON.stringify(wanted.asset)} does not exist (${EXPLORER_ASSETS.join(', ')})`,
      outcome: { status: 404, body: `no explorer asset named ${wanted.asset}`, by },
    };
  return {
    detail: `the explorer page's asset ${wanted.asset}, served by sluice-graphql itself`,
    outcome: { status: 200, body: `explorer asset ${wanted.asset}`, by },
  };
}
