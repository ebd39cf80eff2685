/**
 * GraphQL over HTTP (https://graphql.github.io/graphql-over-http/) on every
 * path: the API is the one named by the `x-sluice-graphql-api` header, which
 * Envoy sets on each route to a GraphQLApi.
 *
 * - POST with `Content-Type: application/json` (charset utf-8 or none) and a
 *   body `{query, variables, operationName, extensions}`; GET with the same
 *   as query parameters (variables and extensions JSON-encoded), queries only.
 * - The response is `application/graphql-response+json` when the Accept
 *   header prefers it, `application/json` when the header is absent, names it
 *   or a wildcard; 406 when it names neither.
 * - Status codes: a request that is not a GraphQL request (bad JSON, missing
 *   query) is 400; with application/graphql-response+json a response without
 *   `data` (parse, validation, limit or variable errors) is 400, with
 *   application/json it is 200, as the spec asks for each media type.
 *
 * The server is node:http itself: a request is one handler call, with none
 * of a framework's routing, hooks and reply objects (measured as a tenth of
 * the sidecar's CPU per request in front of a remote API).
 */
import http from 'node:http';
import { getOperationAST, GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import {
  writeResult,
  type ClientSignal,
  type ExecutableApi,
  type ExecuteArgs,
  type RequestContext,
  type WrittenResult,
} from './api.js';
import type { DocumentCache } from './documents.js';
import { answerExplorer } from './explorer.js';
import type { Limits } from './limits.js';
import type { Metrics, Outcome } from './metrics.js';
import type { ApiRegistry } from './registry.js';
import { GRAPHQL_API_HEADER } from '../contract/names.js';
import { NO_SPAN, NO_TRACING, type Span, type Tracer } from '../runtime/tracing.js';

const GRAPHQL_RESPONSE = 'application/graphql-response+json';
const JSON_TYPE = 'application/json';
type MediaType = typeof GRAPHQL_RESPONSE | typeof JSON_TYPE;

export interface GraphQLHttpOptions {
  registry: ApiRegistry;
  documents: DocumentCache;
  metrics: Metrics;
  logger: Logger;
  limits: Limits;
  /** The 503 message while no configuration is applied. */
  notReadyMessage: string;
  /** Each request a span of the caller's trace (--otlp-endpoint); absent: off. */
  tracer?: Tracer;
}

interface Params {
  query: string;
  variables: Record<string, unknown> | null;
  operationName: string | null;
}

/** A request refused before GraphQL sees it: an HTTP status and a message. */
class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function mediaRange(text: string): { type: string; params: Map<string, string> } {
  const [type = '', ...rest] = text.split(';');
  const params = new Map<string, string>();
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq > 0)
      params.set(
        p.slice(0, eq).trim().toLowerCase(),
        p
          .slice(eq + 1)
          .trim()
          .replace(/^"(.*)"$/, '$1'),
      );
  }
  return { type: type.trim().toLowerCase(), params };
}

/**
 * The response media type for an Accept header, or undefined (406). The
 * highest q wins; on a tie graphql-response+json named outright beats
 * application/json, which beats a wildcard (answered as application/json).
 */
export function negotiate(accept: string | undefined): MediaType | undefined {
  if (accept === undefined) return JSON_TYPE;
  // Clients send a few Accept headers, the same on every request: each is read once.
  const known = negotiated.get(accept);
  if (known !== undefined) return known || undefined;
  const type = negotiateAnew(accept);
  if (negotiated.size >= NEGOTIATED_KEPT) negotiated.clear();
  negotiated.set(accept, type ?? '');
  return type;
}

const NEGOTIATED_KEPT = 100;
/** Accept header -> media type ('' for none). */
const negotiated = new Map<string, MediaType | ''>();

function negotiateAnew(accept: string): MediaType | undefined {
  if (accept.trim() === '') return JSON_TYPE;
  let best: { type: MediaType; q: number; rank: number } | undefined;
  for (const part of accept.split(',')) {
    const { type, params } = mediaRange(part);
    const q = params.has('q') ? Number(params.get('q')) : 1;
    if (!(q > 0)) continue;
    const charset = params.get('charset');
    if (charset !== undefined && charset.toLowerCase() !== 'utf-8') continue;
    const match: [MediaType, number] | undefined =
      type === GRAPHQL_RESPONSE
        ? [GRAPHQL_RESPONSE, 3]
        : type === JSON_TYPE
          ? [JSON_TYPE, 2]
          : type === 'application/*' || type === '*/*'
            ? [JSON_TYPE, 1]
            : undefined;
    if (!match) continue;
    if (!best || q > best.q || (q === best.q && match[1] > best.rank)) best = { type: match[0], q, rank: match[1] };
  }
  return best?.type;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A GET's query string, decoded (`+` is a space). */
function queryOf(url: string): URLSearchParams {
  const q = url.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
}

/** A GET parameter: one string, or undefined. */
function queryParam(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw new RequestError(400, `the ${name} parameter is given more than once`);
  return values[0];
}

function jsonParam(text: string | undefined, name: string): unknown {
  if (text === undefined || text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    throw new RequestError(400, `the ${name} parameter is not JSON`);
  }
}

/** {query, variables, operationName, extensions} from a GET's query string or a POST's JSON body. */
function readParams(req: http.IncomingMessage, body: string | undefined): Params {
  let raw: Record<string, unknown>;
  if (req.method === 'GET') {
    const q = queryOf(req.url ?? '');
    raw = {
      query: queryParam(q, 'query'),
      operationName: queryParam(q, 'operationName'),
      variables: jsonParam(queryParam(q, 'variables'), 'variables'),
      extensions: jsonParam(queryParam(q, 'extensions'), 'extensions'),
    };
  } else {
    const contentType = req.headers['content-type'];
    // The usual spelling is taken as it is; any other is parsed.
    if (contentType !== JSON_TYPE) {
      const { type, params } = mediaRange(contentType ?? '');
      const charset = params.get('charset');
      if (type !== JSON_TYPE || (charset !== undefined && charset.toLowerCase() !== 'utf-8'))
        throw new RequestError(
          415,
          `send the request as Content-Type: ${JSON_TYPE} (charset utf-8); got ${type || 'none'}`,
        );
    }
    if (body === undefined || body.trim() === '')
      throw new RequestError(400, 'the request body is empty; send {"query": "..."}');
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new RequestError(400, 'the request body is not JSON');
    }
    if (!isObject(parsed)) throw new RequestError(400, 'the request body is not a JSON object; send {"query": "..."}');
    raw = parsed;
  }
  const { query, variables, operationName, extensions } = raw;
  if (query === undefined || query === null || query === '') throw new RequestError(400, 'the request has no query');
  if (typeof query !== 'string') throw new RequestError(400, 'query must be a string');
  if (variables !== undefined && variables !== null && !isObject(variables))
    throw new RequestError(400, 'variables must be an object');
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string')
    throw new RequestError(400, 'operationName must be a string');
  if (extensions !== undefined && extensions !== null && !isObject(extensions))
    throw new RequestError(400, 'extensions must be an object');
  return {
    query,
    variables: (variables as Record<string, unknown> | null | undefined) ?? null,
    operationName: (operationName as string | null | undefined) ?? null,
  };
}

/** Headers of every answer: set once, not per response. */
const CONTENT_TYPE: Record<MediaType, string> = {
  [GRAPHQL_RESPONSE]: `${GRAPHQL_RESPONSE}; charset=utf-8`,
  [JSON_TYPE]: `${JSON_TYPE}; charset=utf-8`,
};

interface Answer {
  res: http.ServerResponse;
  /** Set while the server closes: the connection is closed after the answer. */
  closing: boolean;
}

function send(to: Answer, type: MediaType, status: number, body: unknown, allow?: string): void {
  sendJson(to, type, status, JSON.stringify(body), allow);
}

function sendJson({ res, closing }: Answer, type: MediaType, status: number, json: string, allow?: string): void {
  const headers: http.OutgoingHttpHeaders = {
    'content-type': CONTENT_TYPE[type],
    'content-length': Buffer.byteLength(json),
  };
  if (allow) headers.allow = allow;
  if (closing) headers.connection = 'close';
  res.writeHead(status, headers);
  res.end(json);
}

function errorBody(message: string, code?: string): { errors: unknown[] } {
  return { errors: [{ message, ...(code ? { extensions: { code } } : {}) }] };
}

/** The client's going away, as executors see it: lighter than an AbortController per request. */
class ClientGone implements ClientSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] = [];

  addEventListener(_type: 'abort', listener: () => void): void {
    this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const i = this.listeners.indexOf(listener);
    if (i >= 0) this.listeners.splice(i, 1);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = new DOMException('This operation was aborted', 'AbortError');
    // Every listener runs once: there is no second abort.
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}

/** What a result counts as in metrics. */
function outcomeOf(result: WrittenResult): Outcome {
  if (!result.hasErrors) return 'ok';
  if (result.data === 'absent') return 'invalid';
  return result.data === 'null' ? 'error' : 'partial';
}

/** The request body, or 'too large' once it passes `limit` bytes (reading stops there). */
function readBody(req: http.IncomingMessage, limit: number): Promise<string | 'too large'> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.resolve('too large');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const onData = (chunk: Buffer) => {
      length += chunk.length;
      if (length > limit) {
        req.off('data', onData);
        resolve('too large');
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () =>
      resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')),
    );
    req.on('error', reject);
    // A client that goes away in the middle of its body: nothing more comes (a no-op once settled).
    req.on('close', () => reject(new Error('the client went away before the end of its body')));
  });
}

export interface GraphQLHttpServer {
  server: http.Server;
  listen(port: number, host: string): Promise<void>;
  /** Stops taking connections; requests in flight finish (their connections close after the answer). */
  close(): Promise<void>;
}

export function graphqlHttpServer(opts: GraphQLHttpOptions): GraphQLHttpServer {
  const { registry, documents, metrics, limits } = opts;
  // One child logger per API, not one per request.
  const loggers = new WeakMap<ExecutableApi, Logger>();
  const loggerOf = (api: ExecutableApi) => {
    let logger = loggers.get(api);
    if (!logger) loggers.set(api, (logger = opts.logger.child({ api: api.name })));
    return logger;
  };
  let closing = false;

  const tracer = opts.tracer ?? NO_TRACING;
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, span: Span): Promise<void> => {
    const started = process.hrtime.bigint();
    const to: Answer = { res, closing };
    let api = '(none)';
    const finish = (outcome: Outcome) => {
      metrics.countRequest(api, outcome, Number(process.hrtime.bigint() - started) / 1e9);
    };
    let body: string | undefined;
    if (req.method === 'POST') {
      const read = await readBody(req, limits.maxBodyBytes);
      if (read === 'too large') {
        // The rest of the body is not read: the connection closes after the answer.
        to.closing = true;
        return send(
          to,
          negotiate(req.headers.accept) ?? JSON_TYPE,
          413,
          errorBody(
            `the request body is larger than the limit of ${limits.maxBodyBytes} bytes (set by --max-body-bytes)`,
            'LIMIT_EXCEEDED',
          ),
        );
      }
      body = read;
    }
    if (req.method !== 'GET' && req.method !== 'POST') {
      finish('invalid');
      return send(
        to,
        JSON_TYPE,
        405,
        errorBody(`method ${req.method} is not allowed; use POST (or GET for queries)`),
        'GET, POST',
      );
    }
    // A browser's GET for the explorer (where its API has it on) is a page, not a GraphQL request.
    const explored = req.method === 'GET' ? answerExplorer(req, res, registry, to.closing) : undefined;
    if (explored) return metrics.countExplorer(explored.api, explored.answer);
    const type = negotiate(req.headers.accept);
    if (!type) {
      finish('invalid');
      return send(
        to,
        JSON_TYPE,
        406,
        errorBody(`none of the media types in Accept is served; accept ${GRAPHQL_RESPONSE} or ${JSON_TYPE}`),
      );
    }
    if (!registry.ready) {
      finish('unavailable');
      return send(to, type, 503, errorBody(opts.notReadyMessage, 'NOT_READY'));
    }
    const name = req.headers[GRAPHQL_API_HEADER];
    const lease = typeof name === 'string' && name !== '' ? registry.acquire(name) : undefined;
    if (!lease) {
      api = '(unknown)';
      finish('not_found');
      const message =
        typeof name === 'string' && name !== ''
          ? `no GraphQL API named ${name}`
          : `the request has no ${GRAPHQL_API_HEADER} header naming a GraphQL API (Envoy sets it on routes to a GraphQLApi)`;
      return send(to, type, 404, errorBody(message, 'API_NOT_FOUND'));
    }
    api = lease.api.name;
    if (tracer.on) span.setAttribute('sluice.graphql.api', api);
    try {
      let params: Params;
      try {
        params = readParams(req, body);
      } catch (err) {
        if (!(err instanceof RequestError)) throw err;
        finish('invalid');
        return send(to, type, err.status, errorBody(err.message, 'BAD_REQUEST'));
      }
      const prepared = documents.prepare(lease.api, lease.config.executable?.maxDepth ?? 0, params.query);
      const refuse = (errors: readonly GraphQLError[]) => {
        finish('invalid');
        return send(to, type, type === GRAPHQL_RESPONSE ? 400 : 200, { errors });
      };
      if (!prepared.document) return refuse(prepared.errors);
      const operation = getOperationAST(prepared.document, params.operationName);
      if (req.method === 'GET' && operation && operation.operation !== 'query') {
        finish('invalid');
        return send(
          to,
          type,
          405,
          errorBody(`a ${operation.operation} cannot be sent with GET; use POST`, 'METHOD_NOT_ALLOWED'),
          'POST',
        );
      }
      if (prepared.errors.length) return refuse(prepared.errors);
      if (operation?.operation === 'subscription')
        return refuse([new GraphQLError('subscriptions are not supported', { nodes: operation })]);

      const gone = new ClientGone();
      res.on('close', () => {
        if (!res.writableFinished) gone.abort();
      });
      const context: RequestContext = {
        headers: req.headers,
        calls: new Map(),
        logger: loggerOf(lease.api),
        signal: gone,
      };
      const args: ExecuteArgs = {
        document: prepared.document,
        query: params.query,
        variableValues: params.variables,
        operationName: params.operationName,
        context,
      };
      let result: WrittenResult;
      if (tracer.on && operation) {
        span.setAttribute('graphql.operation.type', operation.operation);
        if (operation.name) span.setAttribute('graphql.operation.name', operation.name.value);
      }
      try {
        result = await tracer.span('graphql.execute', async () =>
          lease.api.executeAndWrite ? lease.api.executeAndWrite(args) : writeResult(await lease.api.execute(args)),
        );
      } catch (err) {
        finish('error');
        throw err;
      }
      const outcome = outcomeOf(result);
      finish(outcome);
      if (tracer.on) span.setAttribute('sluice.graphql.outcome', outcome);
      // Variables only where the API allows it (logSensitiveInfo).
      context.logger.debug(
        {
          operationName: params.operationName,
          outcome,
          ...(lease.config.logSensitiveInfo ? { variables: params.variables } : {}),
        },
        'GraphQL request',
      );
      // Without data the request never ran (e.g. variables that do not coerce): a request error.
      to.closing = closing;
      return sendJson(to, type, type === GRAPHQL_RESPONSE && result.data === 'absent' ? 400 : 200, result.json);
    } finally {
      lease.release();
    }
  };

  const server = http.createServer((req, res) => {
    const handled = tracer.on
      ? tracer.incoming(`graphql ${req.method ?? ''}`, req.headers, (span) => handle(req, res, span), {
          'http.request.method': req.method ?? '',
          'url.path': (req.url ?? '').split('?')[0]!,
        })
      : handle(req, res, NO_SPAN);
    handled.catch((err: unknown) => {
      // A client that went away leaves nobody to answer.
      if (res.headersSent || res.destroyed) return;
      opts.logger.error({ err: (err as Error).message }, 'GraphQL request failed');
      send({ res, closing }, negotiate(req.headers.accept) ?? JSON_TYPE, 500, errorBody('internal error'));
    });
  });
  // As Fastify had them: idle connections kept longer than the usual 60 s of proxies in front; no deadline on a request.
  server.keepAliveTimeout = 72_000;
  server.requestTimeout = 0;

  return {
    server,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      }),
    close() {
      closing = true;
      if (!server.listening) return Promise.resolve();
      // Idle connections close now (node:http), busy ones after their answer (connection: close).
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
