/**
 * A Kubernetes API server double for tests and the kube benchmark: node:http
 * on 127.0.0.1 (port 0), spoken to by the real @kubernetes/client-node. It
 * follows the API's protocol where a client can tell: discovery (/api,
 * /apis, /api/v1, /apis/<group>/<version>), list with resourceVersion,
 * labelSelector, fieldSelector and `limit`/`continue` paging (consistent at
 * the first page's revision; 410 Expired for a token older than the
 * compacted history), watch (`watch=1`) from a resourceVersion with
 * BOOKMARK events (`allowWatchBookmarks`), `timeoutSeconds`, and an ERROR
 * event carrying Status 410 "too old resource version" for a revision
 * compaction has passed; get, create, update (409 on a stale
 * resourceVersion), merge and JSON patch, delete; the status subresource;
 * Status objects for failures. What it is not: no admission, no defaulting,
 * no authentication (any token is taken), no server-side apply, strategic
 * merge patch applied as a merge patch.
 *
 * Tests change the cluster directly (put, remove), drop every watch
 * connection, compact the history and send bookmarks on demand.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { BUILT_IN_TYPES, groupList, resourceList } from './kube-discovery.js';
import { jsonPatch, mergePatch, PatchError } from './kube-patch.js';
import { fieldSelector, labelSelector, type KubeObject, type ObjectPredicate } from './kube-selectors.js';
import {
  ApiError,
  apiVersionOf,
  KubeStore,
  typeKeyOf,
  type ResourceType,
  type StoreEvent,
  type UpdateOptions,
} from './kube-store.js';

export type { KubeObject } from './kube-selectors.js';
export type { ResourceType } from './kube-store.js';
export { BUILT_IN_TYPES } from './kube-discovery.js';

export interface KubeApiServerOptions {
  /** Custom resource kinds served from the start. */
  types?: readonly ResourceType[];
  /** Events kept before the oldest is compacted away (etcd compacts every 5 minutes; tests want it small or explicit). */
  historyLimit?: number;
  /** How often an open watch that asked for bookmarks gets one (the API server: about a minute). */
  bookmarkIntervalMs?: number;
}

/** One request as received: tests read the paging and watch parameters from it. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
}

interface Watcher {
  type: ResourceType;
  namespace?: string;
  matches: ObjectPredicate;
  response: http.ServerResponse;
  bookmarks: boolean;
  /** Events at or before this revision were already sent (replayed history or the initial state). */
  sentUpTo: number;
}

const statusOf = (error: ApiError) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: error.message,
  reason: error.reason,
  ...(error.details ? { details: error.details } : {}),
  code: error.code,
});

export class KubeApiServer {
  readonly store: KubeStore;
  readonly requests: RecordedRequest[] = [];
  /** Requests this double answers with an error instead (as an API server whose RBAC forbids them would): set by refuse(). */
  private refusal: { method: string; pathEnd: string; error: ApiError } | undefined;
  private readonly watchers = new Set<Watcher>();
  private readonly server: http.Server;
  private readonly bookmarkTimer: NodeJS.Timeout;

  private constructor(options: KubeApiServerOptions) {
    this.store = new KubeStore(options.historyLimit ?? 1_000_000);
    for (const type of [...BUILT_IN_TYPES, ...(options.types ?? [])]) this.store.addType(type);
    this.store.subscribe((event) => this.dispatch(event));
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => this.fail(res, error));
    });
    this.bookmarkTimer = setInterval(() => this.bookmark(), options.bookmarkIntervalMs ?? 60_000);
    this.bookmarkTimer.unref();
  }

  static async start(options: KubeApiServerOptions = {}): Promise<KubeApiServer> {
    const double = new KubeApiServer(options);
    await new Promise<void>((resolve) => double.server.listen(0, '127.0.0.1', resolve));
    return double;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** From now on, answers `method` requests whose path ends with `pathEnd` with this error (a Status object); refuse() without arguments stops. */
  refuse(rule?: { method: string; pathEnd: string; code: number; reason: string; message: string }): void {
    this.refusal = rule && {
      method: rule.method,
      pathEnd: rule.pathEnd,
      error: new ApiError(rule.code, rule.reason, rule.message),
    };
  }

  /** A kubeconfig (YAML) that points at the double, for `--kubeconfig`. */
  kubeconfigYaml(): string {
    return [
      'apiVersion: v1',
      'kind: Config',
      // Plain HTTP on loopback: client-node takes http:// only with TLS verification off.
      'clusters: [{name: double, cluster: {server: "' + this.url + '", insecure-skip-tls-verify: true}}]',
      'users: [{name: tester, user: {token: test-token}}]',
      'contexts: [{name: double, context: {cluster: double, user: tester, namespace: default}}]',
      'current-context: double',
      '',
    ].join('\n');
  }

  /** A client-node KubeConfig that points at the double. */
  kubeConfig(): KubeConfig {
    const config = new KubeConfig();
    config.loadFromString(this.kubeconfigYaml());
    return config;
  }

  /** Serves a custom resource kind from now on (its CRD installed). */
  addType(type: ResourceType): void {
    this.store.addType(type);
  }

  /** Creates the object, or replaces it as a controller would (status as given, no precondition). */
  put(object: KubeObject): KubeObject {
    const type = this.typeFor(object);
    const namespace = type.namespaced ? (object.metadata.namespace ?? 'default') : undefined;
    const exists = this.store.find(type, namespace, object.metadata.name) !== undefined;
    const body = { ...object, metadata: { ...object.metadata, namespace, resourceVersion: undefined } };
    return exists
      ? this.store.update(type, body, { keepStatus: true })
      : this.store.create(type, body, { keepStatus: true });
  }

  remove(apiVersion: string, kind: string, namespace: string | undefined, name: string): KubeObject {
    return this.store.delete(this.typeFor({ apiVersion, kind, metadata: { name } }), namespace, name);
  }

  /** The stored object, or undefined. */
  object(apiVersion: string, kind: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const type = this.typeFor({ apiVersion, kind, metadata: { name } });
    return this.store.find(type, namespace, name);
  }

  /** Ends every open watch connection, as an API server restart or a load balancer would. */
  dropWatches(): void {
    for (const watcher of this.watchers) watcher.response.end();
    this.watchers.clear();
  }

  /** Compacts the history: a watch from an older resourceVersion is told 410 Gone and must list again. */
  compact(): void {
    this.store.compact();
  }

  get openWatches(): number {
    return this.watchers.size;
  }

  /** Sends a BOOKMARK (the current resourceVersion) to every watch that asked for them. */
  bookmark(): void {
    for (const watcher of this.watchers) {
      if (!watcher.bookmarks) continue;
      const object = {
        kind: watcher.type.kind,
        apiVersion: apiVersionOf(watcher.type),
        metadata: { resourceVersion: String(this.store.resourceVersion) },
      };
      watcher.response.write(`${JSON.stringify({ type: 'BOOKMARK', object })}\n`);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.bookmarkTimer);
    this.dropWatches();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private typeFor(object: { apiVersion?: string; kind?: string; metadata: { name: string } }): ResourceType {
    const type = this.store.typeOfKind(object.apiVersion ?? '', object.kind ?? '');
    if (!type) throw new Error(`the double serves no ${object.apiVersion} ${object.kind}`);
    return type;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://double');
    const query = Object.fromEntries(url.searchParams);
    this.requests.push({ method: req.method ?? 'GET', path: url.pathname, query });
    if (this.refusal && req.method === this.refusal.method && url.pathname.endsWith(this.refusal.pathEnd))
      throw this.refusal.error;
    const segments = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (url.pathname === '/version')
      return send(res, 200, { major: '1', minor: '31', gitVersion: 'v1.31.0-sluice-double' });
    if (url.pathname === '/healthz' || url.pathname === '/readyz') return send(res, 200, 'ok');
    if (segments[0] === 'api' && segments.length === 1)
      return send(res, 200, { kind: 'APIVersions', versions: ['v1'] });
    if (segments[0] === 'apis' && segments.length === 1) return send(res, 200, groupList(this.store.types()));
    const core = segments[0] === 'api';
    if (!core && segments[0] !== 'apis') throw notFound();
    const group = core ? '' : segments[1];
    const version = core ? segments[1] : segments[2];
    let rest = segments.slice(core ? 2 : 3);
    if (!version) throw notFound();
    if (rest.length === 0) return send(res, 200, resourceList(this.store.types(), group, version));
    let namespace: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3 && this.store.typeOf(group, rest[2])?.namespaced) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
    const [plural, name, subresource] = rest;
    const type = this.store.typeOf(group, plural);
    if (!type || type.version !== version || rest.length > 3) throw notFound();
    if (subresource !== undefined && (subresource !== 'status' || !type.status)) throw notFound();
    const method = req.method ?? 'GET';
    if (name === undefined) {
      if (method === 'GET') {
        return query.watch === '1' || query.watch === 'true'
          ? this.watch(type, namespace, query, res)
          : send(res, 200, this.list(type, namespace, query));
      }
      if (method === 'POST') {
        const body = (await readJson(req)) as KubeObject;
        body.metadata = { ...body.metadata, ...(namespace ? { namespace } : {}) };
        return send(res, 201, this.store.create(type, body));
      }
      throw new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`);
    }
    const options: UpdateOptions = subresource === 'status' ? { subresource: 'status' } : {};
    switch (method) {
      case 'GET':
        return send(res, 200, this.store.get(type, namespace, name));
      case 'PUT': {
        const body = (await readJson(req)) as KubeObject;
        body.metadata = { ...body.metadata, name, ...(namespace ? { namespace } : {}) };
        return send(res, 200, this.store.update(type, body, options));
      }
      case 'PATCH': {
        const patch = await readJson(req);
        const current = this.store.get(type, namespace, name);
        const patched = patchWith(req.headers['content-type'] ?? '', current, patch) as KubeObject;
        patched.metadata = { ...patched.metadata, name, ...(namespace ? { namespace } : {}) };
        patched.metadata.resourceVersion ??= current.metadata.resourceVersion;
        return send(res, 200, this.store.update(type, patched, options));
      }
      case 'DELETE':
        return send(res, 200, this.store.delete(type, namespace, name));
      default:
        throw new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`);
    }
  }

  private list(type: ResourceType, namespace: string | undefined, query: Record<string, string>) {
    const matches = predicates(namespace, query);
    let rv = this.store.resourceVersion;
    let after = '';
    if (query.continue) {
      const token = decodeContinue(query.continue);
      rv = token.rv;
      after = token.start;
    }
    const { keys, objects } = this.store.at(type, rv);
    const limit = Number(query.limit ?? 0);
    const items: KubeObject[] = [];
    let next: string | undefined;
    let remaining = 0;
    for (const key of keys) {
      if (key <= after) continue;
      const object = objects.get(key)!;
      if (!matches(object)) continue;
      if (limit > 0 && items.length === limit) {
        next ??= encodeContinue(rv, items[items.length - 1]);
        remaining++;
        continue;
      }
      items.push(object);
    }
    return {
      kind: `${type.kind}List`,
      apiVersion: apiVersionOf(type),
      metadata: {
        resourceVersion: String(rv),
        ...(next ? { continue: next, remainingItemCount: remaining } : {}),
      },
      items,
    };
  }

  private watch(
    type: ResourceType,
    namespace: string | undefined,
    query: Record<string, string>,
    res: http.ServerResponse,
  ): void {
    const matches = predicates(namespace, query);
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    const from = query.resourceVersion;
    const watcher: Watcher = {
      type,
      namespace,
      matches,
      response: res,
      bookmarks: query.allowWatchBookmarks === 'true' || query.allowWatchBookmarks === '1',
      sentUpTo: this.store.resourceVersion,
    };
    if (from === undefined || from === '' || from === '0') {
      // No revision (or "any"): the current state as ADDED events, then what follows.
      for (const object of this.store.current(type)) {
        if (matches(object)) res.write(`${JSON.stringify({ type: 'ADDED', object })}\n`);
      }
    } else {
      let replay: StoreEvent[];
      try {
        replay = this.store.eventsAfter(type, Number(from));
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        res.end(`${JSON.stringify({ type: 'ERROR', object: statusOf(error) })}\n`);
        return;
      }
      for (const event of replay) this.send(watcher, event);
    }
    this.watchers.add(watcher);
    const close = () => {
      this.watchers.delete(watcher);
      if (!res.writableEnded) res.end();
    };
    res.on('close', close);
    const timeout = Number(query.timeoutSeconds ?? 0);
    if (timeout > 0) {
      const timer = setTimeout(close, timeout * 1000);
      timer.unref();
      res.on('close', () => clearTimeout(timer));
    }
  }

  private dispatch(event: StoreEvent): void {
    for (const watcher of this.watchers) {
      if (typeKeyOf(watcher.type) === event.typeKey && event.rv > watcher.sentUpTo) this.send(watcher, event);
    }
  }

  /** One event to one watch; with a selector, an object that starts or stops matching is ADDED or DELETED for it. */
  private send(watcher: Watcher, event: StoreEvent): void {
    const now = watcher.matches(event.object);
    const before = event.previous !== undefined && event.type !== 'DELETED' ? watcher.matches(event.previous) : now;
    let type: string | undefined = event.type;
    if (event.type === 'MODIFIED') type = now && before ? 'MODIFIED' : now ? 'ADDED' : before ? 'DELETED' : undefined;
    else if (!now) type = undefined;
    if (type) watcher.response.write(`${JSON.stringify({ type, object: event.object })}\n`);
  }

  private fail(res: http.ServerResponse, error: unknown): void {
    const apiError =
      error instanceof ApiError
        ? error
        : error instanceof PatchError
          ? new ApiError(422, 'Invalid', error.message)
          : new ApiError(500, 'InternalError', error instanceof Error ? error.message : String(error));
    if (res.headersSent) {
      res.end();
      return;
    }
    send(res, apiError.code, statusOf(apiError));
  }
}

function notFound(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource');
}

function predicates(namespace: string | undefined, query: Record<string, string>): ObjectPredicate {
  let labels: ObjectPredicate;
  let fields: ObjectPredicate;
  try {
    labels = labelSelector(query.labelSelector ?? null);
    fields = fieldSelector(query.fieldSelector ?? null);
  } catch (error) {
    throw new ApiError(400, 'BadRequest', (error as Error).message);
  }
  return (object) =>
    (namespace === undefined || object.metadata.namespace === namespace) && labels(object) && fields(object);
}

function encodeContinue(rv: number, last: KubeObject): string {
  const start = `${last.metadata.namespace ?? ''}/${last.metadata.name}`;
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (typeof decoded.rv === 'number' && typeof decoded.start === 'string') return decoded;
  } catch {
    // Falls through to the API server's answer to a token it cannot read.
  }
  throw new ApiError(400, 'BadRequest', 'continue key is not valid: incorrect encoded start resourceVersion');
}

function patchWith(contentType: string, current: KubeObject, patch: unknown): unknown {
  const mediaType = contentType.split(';')[0].trim();
  if (mediaType === 'application/json-patch+json') return jsonPatch(current, patch);
  // Strategic merge patch differs for lists with merge keys only; the double merges them as a merge patch does.
  if (mediaType === 'application/merge-patch+json' || mediaType === 'application/strategic-merge-patch+json') {
    return mergePatch(current, patch);
  }
  throw new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json`,
  );
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ApiError(400, 'BadRequest', 'the body of the request could not be decoded as JSON');
  }
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' });
  res.end(text);
}
