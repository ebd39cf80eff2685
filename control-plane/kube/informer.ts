/**
 * One kind's objects in one namespace (or all), kept current the way
 * client-go's reflector does it: a paged list (`limit`/`continue`; a
 * continue token that expired starts the list again), then a watch from the
 * list's resourceVersion with bookmarks, resumed from the last
 * resourceVersion seen (an event's or a bookmark's) whenever the connection
 * ends, and a new list when the API server answers 410 Gone (the history
 * no longer reaches back that far). A kind the API server does not serve
 * (its CRD is not installed: 404) holds no objects; it is logged once and
 * listed again every `absentRetryMs`.
 *
 * client-node's own ListWatch does not ask for bookmarks nor page its list,
 * and stops for good on any list error; this loop uses client-node's Watch
 * and KubeConfig for the connection.
 */
import { Watch } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { ApiFailure, getJson, type KubeConnection } from './client.js';
import { collectionPath, objectKey, type WatchedKind } from './kinds.js';

type KubeJson = Record<string, unknown> & {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
};

export interface InformerHandler {
  upsert(key: string, object: KubeJson): void;
  remove(key: string): void;
  /** After every complete list (the first, each relist after 410, each try of an absent kind). */
  listed(): void;
}

export interface InformerOptions {
  /** Objects per list page. */
  pageSize: number;
  /** How often a kind the API server does not serve is tried again. */
  absentRetryMs: number;
  /** Longest wait before retrying after a failure (the wait doubles from 250 ms up to it). */
  maxBackoffMs: number;
}

export const INFORMER_DEFAULTS: InformerOptions = { pageSize: 500, absentRetryMs: 30_000, maxBackoffMs: 30_000 };

export class Informer {
  private resourceVersion: string | undefined;
  /** The resourceVersion of each object held, by key: a relist removes those it no longer finds. */
  private readonly held = new Map<string, string>();
  private stopped = false;
  private absent = false;
  private lastFailure = '';
  private backoffMs = 0;
  private wake: (() => void) | undefined;
  private abort: AbortController | undefined;
  private readonly watch: Watch;
  private readonly path: string;

  constructor(
    private readonly connection: KubeConnection,
    readonly kind: WatchedKind,
    readonly namespace: string | undefined,
    private readonly handler: InformerHandler,
    private readonly logger: Logger,
    private readonly options: InformerOptions = INFORMER_DEFAULTS,
  ) {
    this.watch = new Watch(connection.config);
    this.path = collectionPath(kind, namespace);
  }

  /** Runs until stop(). */
  async run(): Promise<void> {
    while (!this.stopped) {
      if (this.resourceVersion === undefined) {
        try {
          await this.list();
        } catch (error) {
          if (error instanceof ApiFailure && error.statusCode === 404) {
            this.becameAbsent();
            await this.sleep(this.options.absentRetryMs);
          } else {
            this.failed('list', error);
            await this.sleep(this.nextBackoff());
          }
          continue;
        }
      }
      const ended = await this.watchOnce();
      if (ended.gone) this.resourceVersion = undefined;
      else if (ended.error !== undefined) {
        this.failed('watch', ended.error);
        await this.sleep(this.nextBackoff());
      }
    }
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
    this.wake?.();
  }

  private where(): string {
    return `${this.kind.kind} (${this.kind.apiVersion})${this.namespace === undefined ? '' : ` in namespace ${this.namespace}`}`;
  }

  private async list(): Promise<void> {
    const items: KubeJson[] = [];
    let token: string | undefined;
    let resourceVersion = '';
    do {
      const query: Record<string, string> = { limit: String(this.options.pageSize) };
      if (token) query.continue = token;
      let page;
      try {
        page = await getJson(this.connection, this.path, query);
      } catch (error) {
        // The list's revision was compacted between pages: a fresh list, from the first page.
        if (token && error instanceof ApiFailure && error.statusCode === 410) {
          items.length = 0;
          token = undefined;
          continue;
        }
        throw error;
      }
      for (const item of page.items ?? []) items.push(item as KubeJson);
      token = page.metadata?.continue || undefined;
      resourceVersion = page.metadata?.resourceVersion ?? '';
    } while (token && !this.stopped);
    if (this.stopped) return;
    if (this.absent) this.logger.info(`${this.where()} is served now: watching it`);
    this.absent = false;
    this.replace(items);
    this.resourceVersion = resourceVersion;
    this.lastFailure = '';
    this.handler.listed();
  }

  /** The list's objects replace those held: new and changed ones upserted, missing ones removed. */
  private replace(items: KubeJson[]): void {
    const seen = new Set<string>();
    for (const item of items) {
      const key = this.keyOf(item);
      seen.add(key);
      if (this.held.get(key) !== item.metadata?.resourceVersion) this.upsert(key, item);
    }
    for (const key of [...this.held.keys()]) {
      if (!seen.has(key)) {
        this.held.delete(key);
        this.handler.remove(key);
      }
    }
  }

  private upsert(key: string, object: KubeJson): void {
    // Items of a list of built-in kinds come without apiVersion and kind.
    object.apiVersion ??= this.kind.apiVersion;
    object.kind ??= this.kind.kind;
    this.held.set(key, object.metadata?.resourceVersion ?? '');
    this.handler.upsert(key, object);
  }

  private keyOf(object: KubeJson): string {
    return objectKey(this.kind.apiVersion, this.kind.kind, object.metadata?.namespace, object.metadata?.name ?? '');
  }

  private watchOnce(): Promise<{ gone: boolean; error?: unknown }> {
    return new Promise((resolve) => {
      let gone = false;
      let failure: unknown;
      const query = {
        resourceVersion: this.resourceVersion!,
        allowWatchBookmarks: true,
        // As client-go: 5 to 10 minutes, so the replicas' watches do not all end at once.
        timeoutSeconds: Math.floor(300 + Math.random() * 300),
      };
      const onEvent = (type: string, object: KubeJson) => {
        if (type === 'ERROR') {
          const status = object as { code?: number; message?: string };
          if (status.code === 410) gone = true;
          else failure = new ApiFailure(status.code ?? 0, status);
          return;
        }
        const version = object.metadata?.resourceVersion;
        if (type === 'ADDED' || type === 'MODIFIED') this.upsert(this.keyOf(object), object);
        else if (type === 'DELETED') {
          const key = this.keyOf(object);
          if (this.held.delete(key)) this.handler.remove(key);
        }
        if (version) this.resourceVersion = version;
        this.backoffMs = 0;
      };
      const onDone = (error: unknown) => {
        this.abort = undefined;
        const status = (error as { statusCode?: number } | null)?.statusCode;
        resolve({ gone: gone || status === 410, error: error ?? failure ?? undefined });
      };
      this.watch.watch(this.path, query, onEvent, onDone).then(
        (controller) => {
          this.abort = controller;
          if (this.stopped) controller.abort();
        },
        (error: unknown) => onDone(error),
      );
    });
  }

  private becameAbsent(): void {
    if (!this.absent) {
      this.logger.info(
        `${this.where()} is not served by the API server (its CRD is not installed): skipped, tried again every ${Math.round(this.options.absentRetryMs / 1000)} s`,
      );
    }
    this.absent = true;
    this.replace([]);
    this.handler.listed();
  }

  private failed(what: string, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    if (message === this.lastFailure) return;
    this.lastFailure = message;
    this.logger.error(`${what} of ${this.where()} failed (${message}): retrying`);
  }

  private nextBackoff(): number {
    this.backoffMs = Math.min(Math.max(this.backoffMs * 2, 250), this.options.maxBackoffMs);
    return this.backoffMs;
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
