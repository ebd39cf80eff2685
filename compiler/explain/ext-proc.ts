/**
 * envoy.filters.http.ext_proc (a Gateway's extProcEarly, extProc,
 * extProcLate), read from its compiled config as Envoy runs it: the
 * ExtProcPerRoute of the virtual host and of the route merged, the route's
 * fields over the host's (FilterConfigPerRoute's merge), then the server
 * the request is streamed to and what it is sent. Explain cannot know what
 * the server answers: it assumes the request goes on unchanged.
 */
import type { Json } from '../translate/output.js';
import type { Outcome, Step } from './model.js';

export const EXT_PROC_FILTER = 'envoy.filters.http.ext_proc';
export const isExtProcFilter = (name: string) => name === EXT_PROC_FILTER || name.startsWith(`${EXT_PROC_FILTER}.`);

const CITE = 'docs/envoy-behaviour.md § How explain reads the configuration: ext_proc';

type Levels = { route?: Json; vh?: Json };

/** The merged per-route settings: undefined when none; a route's `overrides` replace the host's `disabled`, field by field. */
function merged(name: string, levels: Levels): { disabled?: boolean; overrides: Json; from: string[] } {
  const out = { overrides: {} as Json, from: [] as string[] } as {
    disabled?: boolean;
    overrides: Json;
    from: string[];
  };
  for (const [level, holder] of [
    ['virtual host', levels.vh],
    ['route', levels.route],
  ] as const) {
    const config = (holder?.typed_per_filter_config as Json | undefined)?.[name] as Json | undefined;
    if (!config) continue;
    out.from.push(level);
    if (config.disabled) out.disabled = true;
    else if (config.overrides) {
      out.disabled = false;
      out.overrides = { ...out.overrides, ...(config.overrides as Json) };
    }
  }
  return out;
}

const server = (grpc: Json) => {
  const envoy = (grpc.envoy_grpc as Json | undefined) ?? {};
  return `cluster ${String(envoy.cluster_name)}${envoy.authority ? ` (authority ${String(envoy.authority)})` : ''}`;
};

function sent(mode: Json | undefined): string {
  const m = mode ?? {};
  const parts = [
    m.request_header_mode === 'SKIP' ? undefined : 'request headers',
    m.request_body_mode && m.request_body_mode !== 'NONE' ? `request body (${String(m.request_body_mode)})` : undefined,
    m.request_trailer_mode === 'SEND' ? 'request trailers' : undefined,
    m.response_header_mode === 'SKIP' ? undefined : 'response headers',
    m.response_body_mode && m.response_body_mode !== 'NONE'
      ? `response body (${String(m.response_body_mode)})`
      : undefined,
    m.response_trailer_mode === 'SEND' ? 'response trailers' : undefined,
  ].filter((p): p is string => p !== undefined);
  return parts.length > 0 ? parts.join(', ') : 'nothing';
}

/** `upstream`: the late filter, among the router's upstream filters (it runs once the route's cluster is chosen, on each try). */
export function evaluateExtProc(
  name: string,
  filter: Json,
  levels: Levels,
  upstream = false,
): { step: Step; assumption?: { text: string; otherwise: Outcome[] } } {
  const stage = name.slice('envoy.filters.http.'.length);
  const where = upstream ? "among the router's upstream filters, just before the request leaves Envoy" : 'in the chain';
  const per = merged(name, levels);
  const step = (summary: string, details: string[] = []): Step => ({ stage, summary, details, cite: CITE });
  if (per.disabled)
    return { step: step(`off for this request (disabled on the ${per.from.at(-1)!}): nothing is sent to its server`) };
  const o = per.overrides;
  const grpc = (o.grpc_service as Json | undefined) ?? (filter.grpc_service as Json);
  const mode = (o.processing_mode as Json | undefined) ?? (filter.processing_mode as Json | undefined);
  const attributes =
    (o.request_attributes as string[] | undefined) ?? (filter.request_attributes as string[] | undefined);
  const details = [
    `sent: ${sent(mode)}`,
    ...(attributes?.length ? [`with the attributes ${attributes.join(', ')}`] : []),
    ...(per.from.length > 0 ? [`settings of the ${per.from.join(' and the ')} over the Gateway's`] : []),
  ];
  const failOpen = filter.failure_mode_allow === true;
  return {
    step: step(`${where}: the request is streamed to the ext_proc server at ${server(grpc)}`, details),
    assumption: {
      text: `the ext_proc server at ${server(grpc)} lets the request through unchanged${
        failOpen ? ' (if it cannot be reached, the request goes on: failureModeAllow)' : ''
      }`,
      // The server may also change the request, or answer it itself (an immediate response with its own status).
      otherwise: failOpen ? [] : [{ status: 500, body: '', by: name }],
    },
  };
}
