/**
 * What the sidecars call to trace (./tracing.ts starts one): the interface,
 * and the tracer in force when tracing is off. Apart from ./tracing.ts so
 * that ./otel.ts, which implements it, does not import what imports it.
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
