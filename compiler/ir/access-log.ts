/** A Gateway's access logs: where each goes and which requests it keeps. */
import type { FieldPath } from '../diagnostics.js';
import type { UpstreamTlsIR } from './tls.js';

export interface AccessLogIR {
  sink: FileSinkIR | GrpcSinkIR | OpenTelemetrySinkIR;
  /** Absent: every request is logged. */
  filter?: AccessLogFilterIR;
}

export interface FileSinkIR {
  kind: 'file';
  path: string;
  /** undefined: Envoy's default text format. */
  format?: { kind: 'text'; text: string } | { kind: 'json'; json: Record<string, unknown> };
}

/** Envoy's gRPC access log service at an Upstream's cluster. */
export interface GrpcSinkIR {
  kind: 'grpc';
  logName: string;
  cluster: string;
  requestHeaders: string[];
  responseHeaders: string[];
  responseTrailers: string[];
  filterStateObjects: string[];
}

/** OTLP logs to a collector at host:port, through a cluster made for it. */
export interface OpenTelemetrySinkIR {
  kind: 'opentelemetry';
  logName: string;
  /** The collector's cluster name (no Upstream has it: `_` is not in Kubernetes names). */
  cluster: string;
  host: string;
  port: number;
  /** Absent: plain HTTP/2 (insecure). Without sslConfig: TLS, SNI the host, no certificate check. */
  tls?: UpstreamTlsIR;
  /** Where the Gateway's collector sslConfig is, when it gave the TLS (its Secret is checked and served as an Upstream's). */
  sslConfigAt?: FieldPath;
  authority?: string;
  headers: { key: string; value: string }[];
  /** Proto3 JSON duration. */
  timeout?: string;
  filterStateObjects: string[];
  disableBuiltinLabels?: boolean;
  /** OpenTelemetry's AnyValue and KeyValueList, in Envoy's proto3 JSON field names. */
  body?: Record<string, unknown>;
  attributes?: Record<string, unknown>;
}

export type AccessLogFilterIR =
  | { kind: 'statusCode' | 'duration'; op: 'EQ' | 'GE' | 'LE'; value: number; runtimeKey: string }
  | { kind: 'notHealthCheck' | 'traceable' }
  | {
      kind: 'runtime';
      runtimeKey: string;
      percent: { numerator: number; denominator: 'HUNDRED' | 'TEN_THOUSAND' | 'MILLION' };
      independent: boolean;
    }
  | { kind: 'and' | 'or'; filters: AccessLogFilterIR[] }
  | { kind: 'header'; header: HeaderMatchIR }
  | { kind: 'responseFlag'; flags: string[] }
  | { kind: 'grpcStatus'; statuses: string[]; exclude: boolean };

export interface HeaderMatchIR {
  name: string;
  match?:
    | { kind: 'exact' | 'prefix' | 'suffix' | 'regex'; value: string }
    | { kind: 'range'; start: number; end: number }
    | { kind: 'present'; present: boolean };
  invert: boolean;
}
