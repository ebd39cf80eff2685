/**
 * Traces of the sidecars (sluice-extauth, sluice-graphql): each request
 * Envoy forwards joins Envoy's trace (W3C traceparent, else B3, read from the
 * request's headers) and its work becomes child spans, exported over
 * OTLP/HTTP when an endpoint is configured (--otlp-endpoint, else
 * OTEL_EXPORTER_OTLP_ENDPOINT). Off by default, and then free: the
 * OpenTelemetry SDK is not even loaded (./otel.ts is imported only when an
 * endpoint is set), and every call below runs the work as it is.
 */

/** Header values as the sidecars see them (node:http's, or Envoy's CheckRequest map). */
export type Headers = Readonly<Record<string, string | readonly string[] | undefined>>;

export type AttributeValue = string | number | boolean;

export interface Span {
  setAttribute(key: string, value: AttributeValue): void;
}

export interface Tracer {
  /** Whether spans are exported: callers skip work done only for spans (attributes) when not. */
  readonly on: boolean;
  /**
   * A server span for a request that arrived with `headers` (its parent is
   * the caller's span named there); `fn` runs with it active, so the spans
   * it starts are its children. A promise ends the span when it settles.
   */
  incoming<T>(name: string, headers: Headers, fn: (span: Span) => T, attributes?: Record<string, AttributeValue>): T;
  /** A child of the active span (client: a call to another service). */
  span<T>(name: string, fn: (span: Span) => T, kind?: 'internal' | 'client'): T;
  /** Adds the active span's traceparent (and tracestate) to headers sent on a call to another service. */
  inject(carrier: Record<string, string>): void;
  /** Exports what is left and stops. */
  shutdown(): Promise<void>;
}

export const NO_SPAN: Span = { setAttribute: () => undefined };

/** Tracing off: the work runs as it is. */
export const NO_TRACING: Tracer = {
  on: false,
  incoming: (_name, _headers, fn) => fn(NO_SPAN),
  span: (_name, fn) => fn(NO_SPAN),
  inject: () => undefined,
  shutdown: () => Promise.resolve(),
};

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
