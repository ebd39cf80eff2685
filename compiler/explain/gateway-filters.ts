/**
 * The filters a Gateway's options add, read from their compiled config as
 * Envoy runs them: health_check answers its path itself (200), buffer
 * answers 413 to a body over its limit (explain sees no body: assumed
 * within it), the compressor gzips a response the client accepts gzip for
 * (the answer's content-encoding, resting on what the upstream sends),
 * grpc_web and grpc_json_transcoder convert some requests without changing
 * the answer, stateful_session says which cookie or header pins the host.
 */
import { perFilterConfig } from '../envoy/match.js';
import { headerValue, type HttpRequest } from '../envoy/request.js';
import type { Json } from '../translate/output.js';
import type { Outcome, Step } from './model.js';
import { evaluateStatefulSession, STATEFUL_SESSION } from './stateful-session.js';

const COMPRESSOR = 'envoy.filters.http.compressor';
const HEALTH_CHECK = 'envoy.filters.http.health_check';
const BUFFER = 'envoy.filters.http.buffer';
const GRPC_WEB = 'envoy.filters.http.grpc_web';
const TRANSCODER = 'envoy.filters.http.grpc_json_transcoder';
export const GATEWAY_FILTERS: ReadonlySet<string> = new Set([
  COMPRESSOR,
  HEALTH_CHECK,
  BUFFER,
  GRPC_WEB,
  TRANSCODER,
  STATEFUL_SESSION,
]);

const CITE = 'docs/envoy-behaviour.md § How explain reads the configuration: Gateway filters';

export interface GatewayFilterResult {
  step: Step;
  reply?: Outcome;
  assumption?: { text: string; otherwise: Outcome[] };
  /** Headers the upstream's answer comes back with, when it comes back. */
  responseHeaders?: Record<string, string>;
}

type Levels = Parameters<typeof perFilterConfig>[1];

export function evaluateGatewayFilter(
  name: string,
  filter: Json,
  levels: Levels,
  req: HttpRequest,
): GatewayFilterResult {
  const step = (stage: string, summary: string, details: string[] = []): Step => ({
    stage,
    summary,
    details,
    cite: CITE,
  });
  if (name === HEALTH_CHECK) {
    const path = (((filter.headers as Json[])[0]!.string_match as Json).exact as string) ?? '';
    if (req.path !== path)
      return { step: step('health_check', `${req.path} is not the health check path ${path}: passed on`) };
    return {
      step: step('health_check', `${path} is the health check path: Envoy answers it itself, no upstream is asked`),
      reply: { status: 200, body: '', by: HEALTH_CHECK },
      assumption: {
        text: 'this Envoy is not draining or failing its health checks (then it answers 503)',
        otherwise: [{ status: 503, body: '', by: HEALTH_CHECK }],
      },
    };
  }
  if (name === BUFFER) {
    const per = perFilterConfig(BUFFER, levels)?.config;
    if (per?.disabled) return { step: step('buffer', 'off for this route: the body streams to the upstream') };
    const limit = ((per?.buffer as Json | undefined) ?? filter).max_request_bytes;
    return {
      step: step('buffer', `the body is read whole before the request goes on, at most ${String(limit)} bytes`),
      assumption: {
        text: `the request body is at most ${String(limit)} bytes (explain sees no body)`,
        otherwise: [{ status: 413, body: 'Payload Too Large', by: BUFFER }],
      },
    };
  }
  if (name === COMPRESSOR) return compressor(filter, req, step);
  if (name === STATEFUL_SESSION) return evaluateStatefulSession(filter, req, CITE);
  if (name === GRPC_WEB) {
    const type = headerValue(req, 'content-type') ?? '';
    return {
      step: step(
        'grpc_web',
        type.startsWith('application/grpc-web')
          ? `content-type ${type}: converted to a gRPC request, and the answer back to gRPC-Web`
          : 'not a gRPC-Web request (content-type application/grpc-web...): passed on',
      ),
    };
  }
  // A route to an Upstream with its own transcoder (serviceSpec) carries that config, over the Gateway's.
  const per = perFilterConfig(TRANSCODER, levels);
  const services = (((per?.config ?? filter).services as string[] | undefined) ?? []).join(', ');
  return {
    step: step(
      'grpc_json_transcoder',
      `JSON requests that match an HTTP rule of ${services} become gRPC calls`,
      per ? [`the settings of the ${per.level} (its Upstream's serviceSpec.grpcJsonTranscoder)`] : [],
    ),
    assumption: {
      text: `the request is not one of ${services}'s HTTP rules (explain does not read the descriptor set); if it is, it goes upstream as a gRPC call`,
      otherwise: [],
    },
  };
}

function compressor(
  filter: Json,
  req: HttpRequest,
  step: (stage: string, summary: string, details?: string[]) => Step,
) {
  const accepted = (headerValue(req, 'accept-encoding') ?? '')
    .split(',')
    .map((part) => part.trim().toLowerCase().split(';'))
    .some(
      ([coding, ...params]) => (coding === 'gzip' || coding === '*') && !params.some((p) => /^\s*q=0(\.0*)?$/.test(p)),
    );
  const response = (filter.response_direction_config as Json | undefined) ?? {};
  const common = (response.common_config as Json | undefined) ?? {};
  const details = response.remove_accept_encoding_header
    ? ['accept-encoding is removed before the request goes upstream']
    : [];
  if (!accepted)
    return { step: step('compressor', 'not compressed: the request does not accept gzip (accept-encoding)', details) };
  const types =
    (common.content_type as string[] | undefined)?.join(', ') ??
    "Envoy's list (JSON, JavaScript, HTML, CSS, plain text, XML, SVG)";
  const conditions = [
    `a content type of ${types}`,
    `at least ${String(common.min_content_length ?? 30)} bytes`,
    ...(response.disable_on_etag_header ? ['no ETag'] : []),
    'no content-encoding of its own and no cache-control: no-transform',
  ];
  return {
    step: step('compressor', "the request accepts gzip: the upstream's answer is gzipped on its way back", details),
    responseHeaders: { 'content-encoding': 'gzip', vary: 'accept-encoding' },
    assumption: {
      text: `the upstream's answer has ${conditions.join(', ')} (otherwise it comes back as it is)`,
      otherwise: [],
    },
  };
}
