/**
 * REST resolvers (Gloo's restResolver): a field's value is fetched with one
 * HTTP request built from templates over the field's arguments, its parent
 * object and the client's headers, and picked out of the JSON answer
 * (resultRoot, then setters). Identical requests within one operation are
 * made once; an upstream failure is an error on that field only.
 */
import { GraphQLError } from 'graphql';
import {
  compileJsonTemplate,
  compileTemplate,
  compileTextTemplate,
  type Rendered,
  type TemplateScope,
} from '../contract/graphql-templates.js';
import {
  apiLogField,
  type FieldResolver,
  type RequestContext,
  type ResolverDeps,
  type ResolverField,
  type RestResolverConfig,
} from './api.js';
import { httpPools, upstreamHeaderName, UpstreamError, type HttpRequest } from './http-client.js';

/** How much of an unexpected answer's body a sensitive-info debug log keeps. */
const LOGGED_BODY_CHARS = 2048;

interface Call {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** `a.b[0]` as a `{$body...}` template: the part of the answer that is the field's value. */
function rootTemplate(resultRoot: string): Rendered {
  if (!resultRoot) return (scope) => scope.body;
  return compileTemplate(`{$body${resultRoot.startsWith('[') ? '' : '.'}${resultRoot}}`);
}

export function createRestResolver(
  config: RestResolverConfig,
  field: ResolverField,
  deps: ResolverDeps,
): FieldResolver {
  // The caller (local.ts) prefixes errors with the API, the field and the resolution.
  const where = 'REST resolver';
  const compile = <T>(what: string, build: () => T): T => {
    try {
      return build();
    } catch (err) {
      throw new Error(`${where}: ${what}: ${(err as Error).message}`);
    }
  };
  const pools = httpPools(deps);
  const timeoutMs = config.timeoutMs || deps.defaultTimeoutMs;

  const pathTemplate = config.headers[':path'] ?? '/';
  if (!pathTemplate.startsWith('/')) throw new Error(`${where}: :path "${pathTemplate}" must start with /`);
  // Values written into the path are URL-encoded: an argument cannot add path segments or a query.
  const path = compile(':path', () => compileTextTemplate(pathTemplate, encodeURIComponent));
  const method = compile(':method', () => compileTextTemplate(config.headers[':method'] ?? 'GET'));
  const headers = Object.entries(config.headers)
    .filter(([name]) => name !== ':method' && name !== ':path')
    .map(([name, t]) => {
      if (name.startsWith(':'))
        throw new Error(`${where}: header "${name}" is not supported (only :method and :path set the request line)`);
      return [upstreamHeaderName(name, where), compile(`header ${name}`, () => compileTextTemplate(t))] as const;
    });
  const query = Object.entries(config.queryParams).map(
    ([name, t]) =>
      [
        encodeURIComponent(name),
        compile(`query parameter ${name}`, () => compileTemplate(t)),
        compileTextTemplate(t),
      ] as const,
  );
  const body = config.body === undefined ? undefined : compile('body', () => compileJsonTemplate(config.body));
  const root = compile('resultRoot', () => rootTemplate(config.resultRoot));
  const setters = Object.entries(config.setters).map(
    ([name, t]) => [name, compile(`setter ${name}`, () => compileTemplate(t))] as const,
  );

  function render(scope: TemplateScope): Call {
    let url = path(scope);
    // A parameter whose template yields nothing (an optional argument not given) is left out.
    const params = query
      .filter(([, value]) => value(scope) != null)
      .map(([name, , text]) => `${name}=${encodeURIComponent(text(scope))}`);
    if (params.length) url += (url.includes('?') ? '&' : '?') + params.join('&');
    const out: Record<string, string> = { accept: 'application/json' };
    for (const [name, value] of headers) {
      const text = value(scope);
      if (text !== '') out[name] = text;
    }
    const call: Call = { method: method(scope).toUpperCase(), path: url, headers: out };
    if (body) {
      call.body = JSON.stringify(body(scope));
      out['content-type'] ??= 'application/json';
    }
    return call;
  }

  async function send(call: Call, context: RequestContext): Promise<unknown> {
    const req: HttpRequest = { ...call, timeoutMs, signal: context.signal };
    // Built when a line is logged only: lines are for failures.
    const log = () => ({
      ...apiLogField(context.logger, deps.api),
      field: `${field.typeName}.${field.fieldName}`,
      cluster: config.target.cluster,
      method: call.method,
    });
    let res;
    try {
      res = await pools.request(config.target, req);
    } catch (err) {
      if (err instanceof UpstreamError) context.logger.warn({ ...log(), code: err.code }, err.message);
      throw err;
    }
    const failed = (what: string): UpstreamError => {
      context.logger.warn({ ...log(), status: res.status }, `REST upstream ${what}`);
      if (deps.logSensitiveInfo)
        context.logger.debug(
          { ...apiLogField(context.logger, deps.api), path: call.path, body: res.body.slice(0, LOGGED_BODY_CHARS) },
          'REST upstream answer',
        );
      return new UpstreamError('UPSTREAM_HTTP_ERROR', `REST upstream ${config.target.cluster} ${what}`, res.status);
    };
    if (res.status < 200 || res.status > 299) throw failed(`answered HTTP ${res.status} to ${call.method}`);
    if (res.body === '') return null;
    try {
      return JSON.parse(res.body);
    } catch {
      throw failed(`answered ${call.method} with a body that is not JSON (HTTP ${res.status})`);
    }
  }

  function set(value: unknown, scope: TemplateScope): unknown {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const out: Record<string, unknown> = { ...value };
    for (const [name, render] of setters) out[name] = render({ ...scope, body: value });
    return out;
  }

  return async (parent, args, context) => {
    const scope: TemplateScope = { args, parent, headers: context.headers };
    const call = render(scope);
    if (!/^[A-Z]+$/.test(call.method))
      throw new GraphQLError(`${field.typeName}.${field.fieldName}: :method "${call.method}" is not an HTTP method`);
    const key = `rest ${JSON.stringify([config.target.cluster, call.method, call.path, Object.entries(call.headers).sort(), call.body])}`;
    let pending = context.calls.get(key);
    if (!pending) {
      pending = send(call, context);
      context.calls.set(key, pending);
    }
    let answer: unknown;
    try {
      answer = await pending;
    } catch (err) {
      if (err instanceof UpstreamError) {
        throw new GraphQLError(err.message, {
          extensions: { code: err.code, ...(err.status !== undefined ? { status: err.status } : {}) },
        });
      }
      throw err;
    }
    const result = root({ body: answer });
    if (!setters.length) return result;
    return Array.isArray(result) ? result.map((item) => set(item, scope)) : set(result, scope);
  };
}
