/**
 * Gloo's serviceSpec.grpcJsonTranscoder on an Upstream (kube or static):
 * Envoy's gRPC-JSON transcoder for the requests routed to it, with the same
 * checks as a Gateway's (the descriptor set holds every service listed).
 */
import type { Diagnostic } from '../diagnostics.js';
import type { GrpcJsonTranscoderIR } from '../ir/listener-options.js';
import type { UpstreamSpec } from '../kinds/upstream.js';
import type { Resource } from '../validate/validate.js';
import { grpcJsonTranscoder } from './gateway-http-options.js';
import type { ResourceIndex } from './index.js';

/** The Upstream's transcoder; its problems go to `diagnostics`. */
export function upstreamTranscoder(r: Resource, diagnostics: Diagnostic[]): GrpcJsonTranscoderIR | undefined {
  const spec = r.spec as UpstreamSpec;
  const [target, serviceSpec] = spec.kube ? ['kube', spec.kube.serviceSpec] : ['static', spec.static?.serviceSpec];
  const transcoder = serviceSpec?.grpcJsonTranscoder;
  if (!transcoder) return undefined;
  return grpcJsonTranscoder(transcoder, r.origin, ['spec', target, 'serviceSpec', 'grpcJsonTranscoder'], diagnostics);
}

/** Every Upstream's transcoder problems, reported once whether or not a route sends to it. */
export function upstreamTranscoderProblems(index: ResourceIndex): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const upstream of index.all('Upstream')) upstreamTranscoder(upstream, out);
  return out;
}
