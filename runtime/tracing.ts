/**
 * Traces of the sidecars (sluice-extauth, sluice-graphql): each request
 * Envoy forwards joins Envoy's trace (W3C traceparent, else B3, read from the
 * request's headers) and its work becomes child spans, exported over
 * OTLP/HTTP when an endpoint is configured (--otlp-endpoint, else
 * OTEL_EXPORTER_OTLP_ENDPOINT). Off by default, and then free: the
 * OpenTelemetry SDK is not even loaded (./otel.ts is imported only when an
 * endpoint is set), and NO_TRACING (./tracer.ts) runs the work as it is.
 */

export { NO_SPAN, NO_TRACING, type AttributeValue, type Headers, type Span, type Tracer } from './tracer.js';
import { NO_TRACING, type Tracer } from './tracer.js';

export interface TracingOptions {
  /** OTLP/HTTP base URL (spans go to `<endpoint>/v1/traces`); undefined: OTEL_EXPORTER_OTLP_ENDPOINT, else off. */
  endpoint?: string;
  /** service.name of the spans. */
  service: string;
}

/** The endpoint in force: the flag's, else the environment's, else none. */
export function otlpEndpoint(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = flag ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export async function startTracing(opts: TracingOptions): Promise<Tracer> {
  const endpoint = otlpEndpoint(opts.endpoint);
  if (!endpoint) return NO_TRACING;
  const { otelTracer } = await import('./otel.js');
  return otelTracer(endpoint, opts.service);
}
