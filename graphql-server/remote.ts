/**
 * The remote executor: a whole operation goes to one upstream GraphQL server
 * over HTTP (GraphQL over HTTP: POST application/json, or GET with query
 * parameters) and its `data` and `errors` come back as they are. The schema
 * clients see is the resource's schemaDefinition; the server validates
 * against it before anything is sent. Stitching reuses remoteExecutor to send
 * sub-requests to remote subschemas.
 */
import {
  buildSchema,
  GraphQLError,
  print,
  type DocumentNode,
  type ExecutionResult,
  type SourceLocation,
} from 'graphql';
import { compileTextTemplate, type TemplateScope } from '../contract/graphql-templates.js';
import {
  apiLogField,
  type ExecutableApi,
  type RemoteExecutorConfig,
  type RequestContext,
  type ResolverDeps,
  type Target,
} from './api.js';
import { httpPools, upstreamHeaderName, UpstreamError } from './http-client.js';

const ACCEPT = 'application/graphql-response+json, application/json';

/** How much of an unexpected answer a sensitive-info debug log keeps. */
const LOGGED_BODY_CHARS = 2048;

export interface RemoteRequest {
  document: DocumentNode;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
  /** The client request's context: its headers feed header templates, its signal ends the call. */
  context?: RequestContext;
}

/** What is sent: the operation's text and its inputs. */
interface Operation {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

type Send = (operation: Operation, context: RequestContext | undefined) => Promise<ExecutionResult>;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An upstream's error object as a GraphQLError, keeping its message, path, locations and extensions. */
function upstreamError(raw: unknown): GraphQLError {
  if (!isObject(raw) || typeof raw.message !== 'string')
    return new GraphQLError('upstream returned an error without a message', {
      extensions: { code: 'UPSTREAM_BAD_RESPONSE' },
    });
  const path =
    Array.isArray(raw.path) && raw.path.every((p) => typeof p === 'string' || typeof p === 'number')
      ? (raw.path as (string | number)[])
      : undefined;
  const error = new GraphQLError(raw.message, {
    path,
    extensions: isObject(raw.extensions) ? raw.extensions : undefined,
  });
  // GraphQLError computes locations from a Source; the upstream already did, against the same document text.
  if (Array.isArray(raw.locations))
    (error as { locations?: SourceLocation[] }).locations = raw.locations as SourceLocation[];
  return error;
}

function failure(err: UpstreamError): ExecutionResult {
  return {
    data: null,
    errors: [
      new GraphQLError(err.message, {
        extensions: { code: err.code, ...(err.status !== undefined ? { status: err.status } : {}) },
      }),
    ],
  };
}

/** Builds the sender of operations to one upstream from the executor's request templates. */
function sender(
  target: Target,
  headers: Record<string, string>,
  queryParams: Record<string, string>,
  deps: ResolverDeps,
  { spanName = '', logSensitiveInfo = deps.logSensitiveInfo } = {},
): Send {
  const where = `GraphQLApi ${deps.api}: remote executor`;
  const pools = httpPools(deps);
  const method = (headers[':method'] ?? 'POST').toUpperCase();
  if (method !== 'POST' && method !== 'GET')
    throw new Error(`${where}: :method "${headers[':method']}" must be POST or GET`);
  const path = headers[':path'] ?? '/graphql';
  if (!path.startsWith('/')) throw new Error(`${where}: :path "${path}" must start with /`);
  const headerTemplates = Object.entries(headers)
    .filter(([name]) => name !== ':method' && name !== ':path')
    .map(([name, t]) => {
      if (name.startsWith(':'))
        throw new Error(`${where}: header "${name}" is not supported (only :method and :path set the request line)`);
      return [upstreamHeaderName(name, where), compileTextTemplate(t)] as const;
    });
  const params = Object.entries(queryParams).map(([name, t]) => [name, compileTextTemplate(t)] as const);

  // Without templates (the usual case) the headers and the URL are the same on every call: built once.
  const fixedHeaders: Record<string, string> | undefined = headerTemplates.length
    ? undefined
    : method === 'GET'
      ? { accept: ACCEPT }
      : { accept: ACCEPT, 'content-type': 'application/json' };
  const fixedUrl = method === 'POST' && params.length === 0 ? path : undefined;

  return async (operation, context) => {
    const logger = context?.logger ?? deps.logger;
    const scope: TemplateScope | undefined =
      fixedHeaders && fixedUrl !== undefined ? undefined : { headers: context?.headers ?? {} };
    let out: Record<string, string>;
    if (fixedHeaders) out = fixedHeaders;
    else {
      out = { accept: ACCEPT };
      for (const [name, value] of headerTemplates) {
        const text = value(scope!);
        if (text !== '') out[name] = text;
      }
      if (method === 'POST') out['content-type'] = 'application/json';
    }
    let url = fixedUrl;
    let body: string | undefined;
    if (method === 'POST')
      body = JSON.stringify({
        query: operation.query,
        variables: operation.variables ?? undefined,
        operationName: operation.operationName ?? undefined,
      });
    if (url === undefined) {
      const search = new URLSearchParams(params.map(([name, value]) => [name, value(scope!)]));
      if (method === 'GET') {
        search.set('query', operation.query);
        if (operation.variables) search.set('variables', JSON.stringify(operation.variables));
        if (operation.operationName) search.set('operationName', operation.operationName);
      }
      const query = search.toString();
      url = query ? `${path}${path.includes('?') ? '&' : '?'}${query}` : path;
    }
    if (logSensitiveInfo)
      logger.debug(
        { ...apiLogField(logger, deps.api), span: spanName, variables: operation.variables },
        'remote GraphQL request',
      );

    let status: number;
    let answer: unknown;
    try {
      const res = await pools.request(target, {
        method,
        path: url,
        headers: out,
        body,
        timeoutMs: deps.defaultTimeoutMs,
        signal: context?.signal,
        ...(spanName ? { spanName } : {}),
      });
      status = res.status;
      try {
        answer = JSON.parse(res.body);
      } catch {
        if (logSensitiveInfo)
          logger.debug(
            { ...apiLogField(logger, deps.api), body: res.body.slice(0, LOGGED_BODY_CHARS) },
            'remote GraphQL answer',
          );
        throw status >= 200 && status <= 299
          ? new UpstreamError(
              'UPSTREAM_BAD_RESPONSE',
              `GraphQL upstream ${target.cluster} answered with a body that is not JSON`,
              status,
            )
          : new UpstreamError(
              'UPSTREAM_HTTP_ERROR',
              `GraphQL upstream ${target.cluster} answered HTTP ${status}`,
              status,
            );
      }
    } catch (err) {
      if (!(err instanceof UpstreamError)) throw err;
      logger.warn(
        {
          ...apiLogField(logger, deps.api),
          span: spanName,
          cluster: target.cluster,
          code: err.code,
          status: err.status,
        },
        err.message,
      );
      return failure(err);
    }
    // GraphQL over HTTP: a non-2xx answer may still be a GraphQL response (errors only); anything else is not one.
    if (!isObject(answer) || (!('data' in answer) && !Array.isArray(answer.errors))) {
      const err =
        status >= 200 && status <= 299
          ? new UpstreamError(
              'UPSTREAM_BAD_RESPONSE',
              `GraphQL upstream ${target.cluster} answered with JSON that is not a GraphQL response`,
              status,
            )
          : new UpstreamError(
              'UPSTREAM_HTTP_ERROR',
              `GraphQL upstream ${target.cluster} answered HTTP ${status}`,
              status,
            );
      logger.warn(
        { ...apiLogField(logger, deps.api), span: spanName, cluster: target.cluster, code: err.code, status },
        err.message,
      );
      return failure(err);
    }
    const result: ExecutionResult = { data: isObject(answer.data) ? answer.data : null };
    if (Array.isArray(answer.errors) && answer.errors.length) result.errors = answer.errors.map(upstreamError);
    if (isObject(answer.extensions)) result.extensions = answer.extensions;
    return result;
  };
}

/**
 * An executor in the shape @graphql-tools uses (a request with a document in,
 * a result out) that sends each request to the upstream. The printed text of
 * a document is kept as long as the document lives.
 */
export function remoteExecutor(
  target: Target,
  headers: Record<string, string>,
  queryParams: Record<string, string>,
  deps: ResolverDeps,
): (request: RemoteRequest) => Promise<ExecutionResult> {
  const send = sender(target, headers, queryParams, deps);
  const printed = new WeakMap<DocumentNode, string>();
  return (request) => {
    let query = printed.get(request.document);
    if (query === undefined) {
      query = print(request.document);
      printed.set(request.document, query);
    }
    return send({ query, variables: request.variables, operationName: request.operationName }, request.context);
  };
}

export function buildRemoteApi(
  name: string,
  api: {
    schemaDefinition: string;
    enableIntrospection: boolean;
    remote: RemoteExecutorConfig;
    logSensitiveInfo: boolean;
  },
  deps: ResolverDeps,
): ExecutableApi {
  let schema;
  try {
    schema = buildSchema(api.schemaDefinition);
  } catch (err) {
    throw new Error(`GraphQLApi ${name}: executable.schema_definition: ${(err as Error).message}`);
  }
  const { target, headers, queryParams, spanName } = api.remote;
  const send = sender(target, headers, queryParams, deps, { spanName, logSensitiveInfo: api.logSensitiveInfo });
  return {
    name,
    schema,
    enableIntrospection: api.enableIntrospection,
    // The client's own text goes upstream: the document was validated against the same schema.
    execute: (args) =>
      send({ query: args.query, variables: args.variableValues, operationName: args.operationName }, args.context),
  };
}
