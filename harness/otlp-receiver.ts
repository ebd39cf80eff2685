/**
 * A real OTLP/HTTP trace receiver for tests: node:http on a free 127.0.0.1
 * port taking POST /v1/traces with OTLP's JSON encoding (what
 * @opentelemetry/exporter-trace-otlp-http sends), decoded into flat spans
 * (hex ids, the service from the resource). It answers as a collector does
 * (200 with an empty ExportTraceServiceResponse); anything else is 404 or 415.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: number;
}

export interface OtlpReceiver {
  /** The endpoint to configure (spans are posted to `<endpoint>/v1/traces`). */
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  close(): Promise<void>;
}

type Json = Record<string, any>;

function attributeValue(v: Json): string | number | boolean {
  if ('stringValue' in v) return v.stringValue as string;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue as number;
  if ('boolValue' in v) return v.boolValue as boolean;
  return JSON.stringify(v);
}

function attributes(list: Json[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((a) => [a.key as string, attributeValue(a.value as Json)]));
}

export function decodeExport(body: Json): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of (body.resourceSpans as Json[] | undefined) ?? []) {
    const service = String(attributes(rs.resource?.attributes)['service.name'] ?? '');
    for (const ss of (rs.scopeSpans as Json[] | undefined) ?? [])
      for (const s of (ss.spans as Json[] | undefined) ?? [])
        out.push({
          service,
          traceId: s.traceId as string,
          spanId: s.spanId as string,
          parentSpanId: (s.parentSpanId as string | undefined) ?? '',
          name: s.name as string,
          kind: s.kind as number,
          attributes: attributes(s.attributes as Json[] | undefined),
          status: (s.status?.code as number | undefined) ?? 0,
        });
  }
  return out;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      spans.push(...decodeExport(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
