/**
 * A customAuth server's ext_authz filter (a team's own server, as Gloo's
 * Settings names it), read from its compiled config as Envoy runs it: off
 * where the most specific ExtAuthzPerRoute says `disabled`, otherwise the
 * check goes to the server's cluster, over gRPC or as a plain HTTP request.
 * What the server decides cannot be known: explain assumes it allows, and
 * lists what the client gets otherwise.
 */
import { perFilterConfig } from '../envoy/match.js';
import type { Json } from '../translate/output.js';
import type { Outcome, Step } from './model.js';

export const CUSTOM_AUTH_FILTER_PREFIX = 'envoy.filters.http.ext_authz.custom';
export const isCustomAuthFilter = (name: string) =>
  name === CUSTOM_AUTH_FILTER_PREFIX || name.startsWith(`${CUSTOM_AUTH_FILTER_PREFIX}.`);

const CITE = 'docs/envoy-behaviour.md § How explain reads the configuration: ext_authz';

/** Headers Envoy always puts in an HTTP check request, besides the allowed ones. */
const HTTP_CHECK_HEADERS = ['host', 'method', 'path', 'content-length', 'authorization'];

const patterns = (list: Json | undefined) =>
  ((list?.patterns as Json[] | undefined) ?? []).map((p) =>
    p.exact !== undefined ? String(p.exact) : `/${String((p.safe_regex as Json).regex)}/`,
  );

/** The check as the server sees it, one line each. */
function checkDetails(filter: Json, path: string, context: Json | undefined): { server: string; details: string[] } {
  const http = filter.http_service as Json | undefined;
  const contextLine = context && Object.keys(context).length ? [`context extensions ${JSON.stringify(context)}`] : [];
  if (!http) {
    const grpc = (filter.grpc_service as Json).envoy_grpc as Json;
    return { server: `cluster ${String(grpc.cluster_name)} (gRPC Check)`, details: contextLine };
  }
  const uri = http.server_uri as Json;
  const request = (http.authorization_request as Json | undefined) ?? {};
  const response = (http.authorization_response as Json | undefined) ?? {};
  const added = ((request.headers_to_add as Json[] | undefined) ?? []).map(
    (h) => `${String(h.key)}: ${String(h.value)}`,
  );
  const upstream = [
    ...patterns(response.allowed_upstream_headers as Json | undefined),
    ...patterns(response.allowed_upstream_headers_to_append as Json | undefined).map((h) => `${h} (appended)`),
  ];
  return {
    server: `cluster ${String(uri.cluster)} (HTTP, path ${String(http.path_prefix ?? '')}${path})`,
    details: [
      `headers sent: ${[...HTTP_CHECK_HEADERS, ...patterns(filter.allowed_headers as Json | undefined)].join(', ')}; no body`,
      ...(added.length ? [`headers set on the check: ${added.join(', ')}`] : []),
      ...(upstream.length ? [`the server's answer headers copied onto the request: ${upstream.join(', ')}`] : []),
      ...contextLine,
    ],
  };
}

export function evaluateCustomAuth(
  name: string,
  filter: Json,
  levels: Parameters<typeof perFilterConfig>[1],
  path: string,
): { step: Step; assumption?: { text: string; otherwise: Outcome[] } } {
  const stage = name.slice('envoy.filters.http.'.length);
  const per = perFilterConfig(name, levels);
  if (!per || per.config.disabled)
    return {
      step: {
        stage,
        summary: `off for this request${per ? ` (disabled on the ${per.level})` : ''}: no check`,
        details: [],
        cite: CITE,
      },
    };
  const context = (per.config.check_settings as Json | undefined)?.context_extensions as Json | undefined;
  const { server, details } = checkDetails(filter, path, context);
  const onError: Outcome = {
    status: ((filter.status_on_error as Json | undefined)?.code as number | undefined) ?? 403,
    body: '',
    by: name,
  };
  const failOpen = filter.failure_mode_allow === true;
  // gRPC's denial defaults to 403 with no body; an HTTP server's own status, headers and body are passed on.
  const denial: Outcome = { status: 403, body: '', by: server };
  const denies = filter.http_service
    ? "; a denial is the server's own answer (403 shown)"
    : ' (a denial is 403 unless the server sets its own status)';
  return {
    step: { stage, summary: `the request is checked by the team's server at ${server}`, details, cite: CITE },
    assumption: {
      text: `the server at ${server} allows the request${denies}${
        failOpen ? '; if it cannot be reached, the request goes on (failureModeAllow)' : ''
      }`,
      otherwise: failOpen ? [denial] : [denial, onError],
    },
  };
}
