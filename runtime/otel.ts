/**
 * The OpenTelemetry side of ./tracing.ts, loaded only when an OTLP endpoint
 * is set. Spans are batched and sent as OTLP/HTTP JSON to
 * `<endpoint>/v1/traces`. A request's parent is read from its W3C
 * `traceparent` (Envoy's OpenTelemetry tracer) or, without one, its B3
 * headers (Envoy's Zipkin tracer); calls to other services carry W3C
 * `traceparent` only.
 */
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span as OtelSpan,
  type TextMapGetter,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { B3Propagator } from '@opentelemetry/propagator-b3';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { AttributeValue, Headers, Span, Tracer } from './tracer.js';

/** B3 first, W3C last: when a request carries both, the W3C parent wins (the composite's last extraction does). */
const EXTRACT = new CompositePropagator({ propagators: [new B3Propagator(), new W3CTraceContextPropagator()] });
const INJECT = new W3CTraceContextPropagator();

const HEADER_GETTER: TextMapGetter<Headers> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key.toLowerCase()];
    return typeof value === 'string' ? value : value?.[0];
  },
};

let contextManagerSet = false;

/** One context manager per process (the API's global), whatever the number of sidecars in it (tests run two). */
function ensureContextManager(): void {
  if (contextManagerSet) return;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  contextManagerSet = true;
}

function fail(span: OtelSpan, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/** Runs fn in ctx, ending span when fn returns or, for a promise, when it settles. */
function within<T>(span: OtelSpan, ctx: Context, fn: (span: Span) => T): T {
  const handle: Span = { setAttribute: (k: string, v: AttributeValue) => void span.setAttribute(k, v) };
  let result: T;
  try {
    result = context.with(ctx, fn, undefined, handle);
  } catch (err) {
    fail(span, err);
    span.end();
    throw err;
  }
  if (result instanceof Promise)
    return result.then(
      (value: unknown) => {
        span.end();
        return value;
      },
      (err: unknown) => {
        fail(span, err);
        span.end();
        throw err;
      },
    ) as T;
  span.end();
  return result;
}

export function otelTracer(endpoint: string, service: string): Tracer {
  ensureContextManager();
  const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 })],
  });
  const tracer = provider.getTracer(service);
  return {
    on: true,
    incoming(name, headers, fn, attributes) {
      const parent = EXTRACT.extract(ROOT_CONTEXT, headers, HEADER_GETTER);
      const span = tracer.startSpan(name, { kind: SpanKind.SERVER, ...(attributes ? { attributes } : {}) }, parent);
      return within(span, trace.setSpan(parent, span), fn);
    },
    span(name, fn, kind = 'internal') {
      const parent = context.active();
      const span = tracer.startSpan(name, { kind: kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL }, parent);
      return within(span, trace.setSpan(parent, span), fn);
    },
    inject(carrier) {
      INJECT.inject(context.active(), carrier, {
        set: (c, key, value) => {
          c[key] = value;
        },
      });
    },
    shutdown: () => provider.shutdown(),
  };
}
