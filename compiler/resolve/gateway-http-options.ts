/**
 * An httpGateway's options beyond the connection manager's settings: the
 * HTTP filters it adds (gzip, healthCheck, grpcWeb, buffer,
 * grpcJsonTranscoder, ext_proc, wasm, stateful_session), the router's
 * settings and the connection limit, with the checks the schema cannot make
 * (a descriptor set that holds the services, a duration).
 */
import { parseDuration } from '../../contract/proto3-json.js';
import { fieldError, quote, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import type { BufferPerRouteIR, GzipIR, HttpListenerOptionsIR } from '../ir/listener-options.js';
import type { BufferPerRouteSpec, GzipSpec, GrpcJsonTranscoderSpec } from '../kinds/gateway-http-options.js';
import type { HttpGatewaySpec } from '../kinds/gateway.js';
import { decodeDescriptorSet } from './grpc-descriptors.js';
import { OptionReport, tokenBucket } from './option-report.js';
import { gatewayExtProc, type GrpcCluster } from './ext-proc.js';
import { gatewayWasm } from './wasm.js';
import { statefulSession } from './stateful-session.js';

type Options = NonNullable<HttpGatewaySpec['options']>;

// Gloo's enum names -> Envoy's (gzip/plugin.go).
const LEVELS = { DEFAULT: 'DEFAULT_COMPRESSION', BEST: 'BEST_COMPRESSION', SPEED: 'BEST_SPEED' } as const;
const STRATEGIES = { DEFAULT: 'DEFAULT_STRATEGY', FILTERED: 'FILTERED', HUFFMAN: 'HUFFMAN_ONLY', RLE: 'RLE' } as const;

/** The options as IR; undefined when none of them is set. */
export function httpListenerOptions(
  options: Options | undefined,
  origin: Origin,
  path: FieldPath,
  diagnostics: Diagnostic[],
  grpc: GrpcCluster,
): HttpListenerOptionsIR | undefined {
  if (!options) return undefined;
  const out: HttpListenerOptionsIR = {};
  if (options.gzip) out.gzip = gzip(options.gzip);
  if (options.healthCheck) out.healthCheckPath = options.healthCheck.path;
  if (options.grpcWeb && !options.grpcWeb.disable) out.grpcWeb = true;
  if (options.buffer) out.maxRequestBytes = options.buffer.maxRequestBytes;
  if (options.grpcJsonTranscoder) {
    const t = grpcJsonTranscoder(options.grpcJsonTranscoder, origin, [...path, 'grpcJsonTranscoder'], diagnostics);
    if (t) out.grpcJsonTranscoder = t;
  }
  if (options.router) out.router = { ...options.router };
  const extProc = gatewayExtProc(options, path, origin, grpc, diagnostics);
  if (extProc.length > 0) out.extProc = extProc;
  const wasm = gatewayWasm(options.wasm, origin, [...path, 'wasm'], diagnostics);
  if (wasm.length > 0) out.wasm = wasm;
  if (options.statefulSession) {
    const session = statefulSession(options.statefulSession, origin, [...path, 'statefulSession'], diagnostics);
    if (session) out.statefulSession = session;
  }
  const limit = options.connectionLimit;
  if (limit?.maxActiveConnections !== undefined) {
    const delay = limit.delayBeforeClose;
    if (delay !== undefined && !((parseDuration(delay) ?? -1n) >= 0n))
      diagnostics.push(
        fieldError(
          'resolve',
          origin,
          [...path, 'connectionLimit', 'delayBeforeClose'],
          `${quote(delay)} is not a duration`,
          'write a number with a unit, e.g. "1s" or "250ms"',
        ),
      );
    out.connectionLimit = { maxConnections: limit.maxActiveConnections, ...(delay ? { delay } : {}) };
  }
  const report = new OptionReport(origin, diagnostics);
  const local = options.httpLocalRatelimit;
  if (local) {
    const { defaultLimit } = local;
    out.httpLocalRateLimit = {
      ...(defaultLimit
        ? { defaultLimit: tokenBucket(defaultLimit, [...path, 'httpLocalRatelimit', 'defaultLimit'], report) }
        : {}),
      perConnection: local.localRateLimitPerDownstreamConnection ?? false,
      xRateLimitHeaders: local.enableXRatelimitHeaders ?? false,
    };
  }
  if (options.networkLocalRatelimit)
    out.networkLocalRateLimit = tokenBucket(options.networkLocalRatelimit, [...path, 'networkLocalRatelimit'], report);
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Gloo's BufferPerRoute of a virtual host or route. */
export function bufferPerRoute(spec: BufferPerRouteSpec): BufferPerRouteIR {
  return spec.disabled ? { disabled: true } : { maxRequestBytes: spec.buffer!.maxRequestBytes };
}

function gzip(spec: GzipSpec): GzipIR {
  return {
    ...(spec.memoryLevel !== undefined ? { memoryLevel: spec.memoryLevel } : {}),
    ...(spec.contentLength !== undefined ? { minContentLength: spec.contentLength } : {}),
    ...(spec.compressionLevel ? { compressionLevel: LEVELS[spec.compressionLevel] } : {}),
    ...(spec.compressionStrategy ? { compressionStrategy: STRATEGIES[spec.compressionStrategy] } : {}),
    ...(spec.contentType?.length ? { contentTypes: spec.contentType } : {}),
    disableOnEtagHeader: spec.disableOnEtagHeader ?? false,
    removeAcceptEncodingHeader: spec.removeAcceptEncodingHeader ?? false,
    ...(spec.windowBits !== undefined ? { windowBits: spec.windowBits } : {}),
  };
}

/** Envoy does not start when a listed service is missing from the descriptor set: checked here when the set is inline. */
export function grpcJsonTranscoder(
  spec: GrpcJsonTranscoderSpec,
  origin: Origin,
  path: FieldPath,
  diagnostics: Diagnostic[],
): HttpListenerOptionsIR['grpcJsonTranscoder'] {
  const { protoDescriptor, protoDescriptorBin, services, ...rest } = spec;
  let descriptor: NonNullable<HttpListenerOptionsIR['grpcJsonTranscoder']>['descriptor'];
  if (protoDescriptorBin !== undefined) {
    const decoded = decodeDescriptorSet(protoDescriptorBin);
    if ('problem' in decoded) {
      diagnostics.push(
        fieldError(
          'resolve',
          origin,
          [...path, 'protoDescriptorBin'],
          `protoDescriptorBin ${decoded.problem}`,
          'write the output of protoc --include_imports --descriptor_set_out in base64',
        ),
      );
      return undefined;
    }
    let missing = false;
    services.forEach((name, i) => {
      try {
        decoded.root.lookupService(name);
      } catch {
        missing = true;
        diagnostics.push(
          fieldError(
            'resolve',
            origin,
            [...path, 'services', i],
            `service ${quote(name)} is not in protoDescriptorBin (Envoy would not start)`,
            'write the full name, package.Service, of a service the descriptor set holds',
          ),
        );
      }
    });
    if (missing) return undefined;
    descriptor = { kind: 'bytes', base64: decoded.base64 };
  } else descriptor = { kind: 'file', path: protoDescriptor! };
  return { descriptor, services, ...rest };
}
