/**
 * The `passThroughAuth` config: the decision is asked of a team's own
 * service, over gRPC (./pass-through-grpc.ts) or HTTP
 * (./pass-through-http.ts). A service that cannot be reached, does not
 * answer within the timeout or answers a server error gives 503 (fail
 * closed), or lets the request through when failureModeAllow is set.
 * Clients to a service are shared by the configs that name it and kept
 * across configurations.
 */
import { DEFAULT_SERVICE_TIMEOUT_MS, hostPortProblem, httpUrlProblem } from '../../contract/extauth.js';
import {
  bool,
  ConfigError,
  entries,
  field,
  MAX_TIMEOUT_MS,
  message,
  num,
  str,
  stringValue,
  strings,
  type Obj,
} from '../config-fields.js';
import {
  allow,
  deny,
  type AuthModule,
  type Check,
  type ModuleContext,
  type ModuleInstance,
  type Pending,
  type Prepared,
  type ServiceAnswer,
  type Verdict,
} from '../module.js';
import { grpcPassThrough, type GrpcService, type GrpcSettings } from './pass-through-grpc.js';
import { httpPassThrough, type HttpService, type HttpSettings } from './pass-through-http.js';
import { parseTls } from './pass-through-tls.js';

export interface PassThroughSettings {
  grpc?: GrpcSettings;
  http?: HttpSettings;
  /** Gloo's `config`, handed to the service with every request. */
  config?: Record<string, unknown>;
  failureModeAllow: boolean;
}

const lower = (names: string[]) => names.map((n) => n.toLowerCase());

/** Gloo's connection pool defaults: 100 connections; idle ones closed after 30 s (Gloo keeps them; a restarted service's dead sockets would linger). */
const DEFAULT_MAX_CONNS = 100;
const MAX_CONNS = 10_000;
const DEFAULT_IDLE_TIMEOUT_MS = 30_000;

/** One client per origin and connection settings: configs that agree share its connections. */
const httpClientKey = (h: HttpSettings) => `${new URL(h.url).origin} ${JSON.stringify([h.pool, h.tls])}`;
/** One gRPC client per address and TLS settings. */
const grpcClientKey = (g: GrpcSettings) => `${g.address} ${JSON.stringify(g.tls ?? null)}`;

function parsePassThrough(raw: Obj, where: string): PassThroughSettings {
  const g = message(raw, 'grpc', where);
  const h = message(raw, 'http', where);
  if (!g === !h) throw new ConfigError(`${where}: exactly one of grpc and http`);
  const c = field(raw, 'config');
  const settings: PassThroughSettings = {
    failureModeAllow: bool(raw, 'failure_mode_allow', where),
    ...(c !== undefined && c !== null ? { config: c as Record<string, unknown> } : {}),
  };
  if (g) {
    const at = `${where}.grpc`;
    const address = str(g, 'address', at, true);
    const addressProblem = hostPortProblem(address);
    if (addressProblem) throw new ConfigError(`${at}.address: "${address}" ${addressProblem}`);
    const tls = parseTls(message(g, 'tls', at), `${at}.tls`);
    settings.grpc = {
      address,
      timeoutMs: num(g, 'timeout_ms', DEFAULT_SERVICE_TIMEOUT_MS, MAX_TIMEOUT_MS, at),
      ...(tls ? { tls } : {}),
    };
  } else {
    const at = `${where}.http`;
    const url = str(h!, 'url', at, true);
    const urlProblem = httpUrlProblem(url);
    if (urlProblem) throw new ConfigError(`${at}.url: "${url}" ${urlProblem}`);
    const rq = message(h!, 'request', at) ?? {};
    const rs = message(h!, 'response', at) ?? {};
    const pool = message(h!, 'connection_pool', at) ?? {};
    const tls = parseTls(message(h!, 'tls', at), `${at}.tls`);
    if (tls && !url.startsWith('https://'))
      throw new ConfigError(`${at}.url: "${url}" is not https://, but tls is set`);
    settings.http = {
      url,
      timeoutMs: num(h!, 'timeout_ms', DEFAULT_SERVICE_TIMEOUT_MS, MAX_TIMEOUT_MS, at),
      responseHeaderTimeoutMs: num(h!, 'response_header_timeout_ms', 0, MAX_TIMEOUT_MS, at),
      pool: {
        maxConns: num(pool, 'max_conns', DEFAULT_MAX_CONNS, MAX_CONNS, `${at}.connection_pool`),
        idleTimeoutMs: num(pool, 'idle_timeout_ms', DEFAULT_IDLE_TIMEOUT_MS, MAX_TIMEOUT_MS, `${at}.connection_pool`),
      },
      ...(tls ? { tls } : {}),
      request: {
        allowedHeaders: lower(strings(rq, 'allowed_headers', `${at}.request`)),
        headersToAdd: entries(rq, 'headers_to_add', `${at}.request`, stringValue).map(([k, v]) => [k.toLowerCase(), v]),
        passThroughState: bool(rq, 'pass_through_state', `${at}.request`),
        passThroughFilterMetadata: bool(rq, 'pass_through_filter_metadata', `${at}.request`),
        passThroughBody: bool(rq, 'pass_through_body', `${at}.request`),
      },
      response: {
        allowedUpstreamHeaders: lower(strings(rs, 'allowed_upstream_headers', `${at}.response`)),
        allowedUpstreamHeadersToOverwrite: lower(
          strings(rs, 'allowed_upstream_headers_to_overwrite', `${at}.response`),
        ),
        allowedClientHeadersOnDenied: lower(strings(rs, 'allowed_client_headers_on_denied', `${at}.response`)),
        allowedClientHeadersOnSuccess: lower(strings(rs, 'allowed_client_headers_on_success', `${at}.response`)),
        readStateFromResponse: bool(rs, 'read_state_from_response', `${at}.response`),
      },
    };
  }
  return settings;
}

/** The answer as the config gives it: a failure is 503, or an allow under failureModeAllow. */
function settle(s: PassThroughSettings, answer: ServiceAnswer, context: ModuleContext, target: string): Verdict {
  if (!('failed' in answer)) return answer;
  if (s.failureModeAllow) {
    context.logger.warn(
      { service: target, reason: answer.failed },
      'pass-through service failed; allowed by failureModeAllow',
    );
    return allow({ identity: `failureModeAllow (${target} failed)` });
  }
  return deny(503, `pass-through service ${target}: ${answer.failed}`);
}

class PassThroughInstance implements ModuleInstance<PassThroughSettings> {
  private readonly grpc = new Map<string, GrpcService>();
  private readonly http = new Map<string, HttpService>();

  constructor(private readonly context: ModuleContext) {}

  prepare(settings: readonly PassThroughSettings[]): Prepared<PassThroughSettings> {
    const grpcWanted = new Map(settings.flatMap((s) => (s.grpc ? [[grpcClientKey(s.grpc), s.grpc] as const] : [])));
    const httpWanted = new Map(settings.flatMap((s) => (s.http ? [[httpClientKey(s.http), s.http] as const] : [])));
    const created = { grpc: new Map<string, GrpcService>(), http: new Map<string, HttpService>() };
    for (const [key, g] of grpcWanted)
      if (!this.grpc.has(key)) created.grpc.set(key, grpcPassThrough(g.address, g.tls));
    for (const [key, h] of httpWanted) if (!this.http.has(key)) created.http.set(key, httpPassThrough(h.pool, h.tls));
    const service = {
      grpc: (key: string) => this.grpc.get(key) ?? created.grpc.get(key)!,
      http: (key: string) => this.http.get(key) ?? created.http.get(key)!,
    };
    const checks = new Map<PassThroughSettings, Check>(
      settings.map((s): [PassThroughSettings, Check] => {
        const target = s.grpc ? s.grpc.address : s.http!.url;
        const ask = s.grpc
          ? service.grpc(grpcClientKey(s.grpc)).check(s.grpc, s.config)
          : service.http(httpClientKey(s.http!)).check(s.http!, s.config);
        return [
          s,
          (request): Pending<Verdict> => ask(request).then((answer) => settle(s, answer, this.context, target)),
        ];
      }),
    );
    return {
      check: (s) => checks.get(s)!,
      commit: () => {
        for (const [key, c] of this.grpc) if (!grpcWanted.has(key)) (this.grpc.delete(key), c.close());
        for (const [key, c] of this.http) if (!httpWanted.has(key)) (this.http.delete(key), c.close());
        for (const [key, c] of created.grpc) this.grpc.set(key, c);
        for (const [key, c] of created.http) this.http.set(key, c);
      },
      abort: () => {
        for (const c of [...created.grpc.values(), ...created.http.values()]) c.close();
      },
    };
  }

  async close(): Promise<void> {
    for (const c of [...this.grpc.values(), ...this.http.values()]) c.close();
    this.grpc.clear();
    this.http.clear();
  }
}

export const passThroughModule: AuthModule<PassThroughSettings> = {
  field: 'pass_through_auth',
  parse: parsePassThrough,
  create: (context) => new PassThroughInstance(context),
};
