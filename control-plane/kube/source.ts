/**
 * `serve --kube`'s source of resources: an informer per watched kind (and
 * per namespace with `--namespaces`), all feeding one set of objects. The
 * first compile waits for every informer's first list; after it, a change
 * after a quiet period is compiled at once, and a burst of events is one
 * compile more (coalesce.ts). What each compile read and what it
 * said about each object is kept and announced ('compiled'), for status
 * writing and admission, which compile the same set with a candidate in it.
 */
import { EventEmitter } from 'node:events';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Diagnostic } from '../../compiler/diagnostics.js';
import type { ClusterObject, ClusterObjects, CompileResult, Compiler } from '../../compiler/pipeline.js';
import { coalesce, type Coalescer } from '../coalesce.js';
import type { InputSource } from '../source.js';
import { connect, type KubeConnection } from './client.js';
import { INFORMER_DEFAULTS, Informer, type InformerOptions } from './informer.js';
import { watchedKinds, type WatchedKind } from './kinds.js';

export interface KubeSourceOptions {
  /** A kubeconfig file; absent: in-cluster config in a pod, else KUBECONFIG or ~/.kube/config. */
  kubeconfig?: string;
  /** Namespaces to watch (Gloo's watchNamespaces); absent or empty: all. */
  namespaces?: readonly string[];
  logger: Logger;
  /** Quiet period that ends a burst of events (a change after one is compiled at once), and the longest a burst is held (ms). */
  quietMs?: number;
  maxDelayMs?: number;
  informer?: Partial<InformerOptions>;
  /** The kinds to watch (default: every kind Sluice reads). */
  kinds?: readonly WatchedKind[];
}

/** One compile of the cluster's objects: what it read, and what it said (diagnostics name objects by `Kind namespace/name`). */
export interface KubeCompile {
  /** The objects as compiled: the source's own set, read during the 'compiled' event (it changes with the watch after it). */
  objects: ClusterObjects;
  /** The keys of the objects added, changed or removed since the compile before (all of them at the first). */
  changed: ReadonlySet<string>;
  diagnostics: Diagnostic[];
  /** Whether it produced output (no errors). */
  ok: boolean;
}

export interface KubeSourceEvents {
  compiled: [KubeCompile];
}

/** Quiet period of a burst: a watch delivers a rollout's changes within a few ms of each other. */
const QUIET_MS = 15;
/** The longest a steady stream of changes is held back. */
const MAX_DELAY_MS = 100;

export class KubeSource extends EventEmitter<KubeSourceEvents> implements InputSource {
  private readonly objects = new Map<string, ClusterObject>();
  /** The keys of the objects added, changed or removed since the last compile. */
  private changedKeys = new Set<string>();
  private readonly informers: Informer[] = [];
  private readonly connection: KubeConnection;
  private burst: Coalescer | undefined;
  private synced = false;
  /** The set the latest compile read and its result. */
  last: KubeCompile | undefined;

  constructor(private readonly options: KubeSourceOptions) {
    super();
    this.connection = connect(options.kubeconfig);
  }

  /** The client configuration (credentials, TLS), for status writes and the webhook's caBundle. */
  get kubeConfig(): KubeConfig {
    return this.connection.config;
  }

  /** The API server's address, for the log. */
  get server(): string {
    return this.connection.server;
  }

  /** The objects held now (a copy): what an admission check compiles a candidate against. */
  current(): ClusterObjects {
    return new Map(this.objects);
  }

  start(onChange: () => void): Promise<void> {
    const { logger } = this.options;
    // A lone change is compiled at once; the changes that follow it within the quiet period wait for their burst to end.
    this.burst = coalesce(onChange, {
      quietMs: this.options.quietMs ?? QUIET_MS,
      maxMs: this.options.maxDelayMs ?? MAX_DELAY_MS,
      leading: true,
    });
    const namespaces = this.options.namespaces?.length ? this.options.namespaces : [undefined];
    const kinds = this.options.kinds ?? watchedKinds();
    let pending = kinds.length * namespaces.length;
    return new Promise((resolve) => {
      for (const kind of kinds) {
        for (const namespace of namespaces) {
          let listed = false;
          const informer = new Informer(
            this.connection,
            kind,
            namespace,
            {
              upsert: (key, object) => {
                this.objects.set(key, object);
                this.changed(key);
              },
              remove: (key) => {
                this.objects.delete(key);
                this.changed(key);
              },
              listed: () => {
                if (listed) return;
                listed = true;
                if (--pending === 0) {
                  this.synced = true;
                  logger.info({ objects: this.objects.size, server: this.server }, 'kube: every kind listed');
                  resolve();
                }
              },
            },
            logger,
            { ...INFORMER_DEFAULTS, ...this.options.informer },
          );
          this.informers.push(informer);
          void informer.run();
        }
      }
    });
  }

  async compile(compiler: Compiler): Promise<CompileResult> {
    const { objects } = this;
    const changed = this.changedKeys;
    this.changedKeys = new Set();
    // What changed lets an EndpointSlice or Pod change skip the stages it does not affect (compiler/endpoint-update.ts).
    const result = compiler.compileObjects(objects, changed);
    this.last = {
      objects,
      changed,
      diagnostics: result.diagnostics,
      ok: result.xds !== undefined || result.proxies !== undefined,
    };
    this.emit('compiled', this.last);
    return result;
  }

  close(): void {
    this.burst?.close();
    for (const informer of this.informers) informer.stop();
  }

  private changed(key: string): void {
    this.changedKeys.add(key);
    // Before the first sync the first compile is still to come: nothing to coalesce.
    if (this.synced) this.burst?.fire();
  }
}
