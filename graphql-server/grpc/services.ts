/**
 * What gRPC resolvers share across the whole server: one grpc-js Client
 * (one channel, kept open) per upstream host:port with calls round-robin
 * across a target's hosts, and the message types of each upstream service,
 * asked once by server reflection (concurrent askers share the one fetch)
 * or read from an API's protoDescriptorBin.
 */
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import type { ClientSignal, HostPort, ResolverDeps, SharedService, Target } from '../api.js';
import { NO_TRACING, type Tracer } from '../../runtime/tracing.js';
import { GrpcFailure } from './failure.js';
import { reflectService, type FileDescriptor } from './reflection.js';

/** fromDescriptor is added to Root by protobufjs/ext/descriptor, outside protobufjs' own types. */
const fromDescriptor = (set: { file: unknown[] }) =>
  (protobuf.Root as unknown as { fromDescriptor(set: unknown): protobuf.Root }).fromDescriptor(set);

const identity = (b: Buffer) => b;

/**
 * Reconnection backoff of a channel to a host that went away, bounded to
 * 0.25-5 s (grpc-js' default grows to 120 s: a service back after a few
 * minutes would stay unreachable for up to two more).
 */
const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.initial_reconnect_backoff_ms': 250,
  'grpc.max_reconnect_backoff_ms': 5000,
};

export interface GrpcServicesOptions {
  /** How long a failed or stale reflection answer is kept before a request asks again (default 1000 ms). */
  retryAfterMs?: number;
  /** Calls become spans of the request's trace (--otlp-endpoint). */
  tracer?: Tracer;
}

interface DescriptorEntry {
  root: Promise<protobuf.Root>;
  /** Set when the fetch failed or the answer proved stale: until then requests get it without asking again. */
  expires?: number;
}

function hostKey(host: HostPort): string {
  return host.address.includes(':') ? `[${host.address}]:${host.port}` : `${host.address}:${host.port}`;
}

export class GrpcServices implements SharedService {
  private readonly clients = new Map<string, grpc.Client>();
  /** Next host index per target (targets are rebuilt with each configuration). */
  private readonly next = new WeakMap<Target, number>();
  /** By target (cluster and hosts) and service name. */
  private readonly reflected = new Map<string, DescriptorEntry>();
  private readonly sets = new WeakMap<Uint8Array, protobuf.Root>();

  private readonly retryAfterMs: number;
  private readonly tracer: Tracer;

  constructor(opts: GrpcServicesOptions = {}) {
    this.retryAfterMs = opts.retryAfterMs ?? 1000;
    this.tracer = opts.tracer ?? NO_TRACING;
  }

  private client(host: HostPort): grpc.Client {
    const key = hostKey(host);
    let client = this.clients.get(key);
    if (!client) {
      client = new grpc.Client(key, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
      this.clients.set(key, client);
    }
    return client;
  }

  private pick(target: Target): HostPort {
    if (target.hosts.length === 0)
      throw new GrpcFailure('UNAVAILABLE', `upstream ${target.cluster} has no hosts`, grpc.status.UNAVAILABLE);
    const i = this.next.get(target) ?? 0;
    this.next.set(target, (i + 1) % target.hosts.length);
    return target.hosts[i]!;
  }

  /** The message types of a FileDescriptorSet (an API's protoDescriptorBin), loaded once per bytes object. */
  fromDescriptorSet(bin: Uint8Array): protobuf.Root {
    let root = this.sets.get(bin);
    if (!root) {
      try {
        root = fromDescriptor(descriptor.FileDescriptorSet.decode(bin) as unknown as { file: unknown[] });
      } catch (err) {
        throw new Error(
          `protoDescriptorBin is not a FileDescriptorSet protobufjs can load (${(err as Error).message}); regenerate it with protoc --include_imports --descriptor_set_out`,
        );
      }
      this.sets.set(bin, root);
    }
    return root;
  }

  private key(target: Target, service: string): string {
    return `${target.cluster} ${target.hosts.map(hostKey).join(',')} ${service}`;
  }

  /**
   * The message types `service` uses, by server reflection on the target's
   * hosts (the first that answers), fetched once and kept; a failure is
   * remembered for retryAfterMs, then asked again.
   */
  descriptors(target: Target, service: string, timeoutMs: number): Promise<protobuf.Root> {
    const key = this.key(target, service);
    const cached = this.reflected.get(key);
    if (cached && (cached.expires === undefined || cached.expires > Date.now())) return cached.root;
    const entry: DescriptorEntry = { root: this.reflect(target, service, timeoutMs) };
    entry.root.catch(() => this.expire(target, service));
    this.reflected.set(key, entry);
    return entry.root;
  }

  /**
   * What reflection said of `service` is used for retryAfterMs more, then
   * asked again: it failed, lacks a method a resolver calls, or the upstream
   * answered UNIMPLEMENTED (it changed).
   */
  expire(target: Target, service: string): void {
    const entry = this.reflected.get(this.key(target, service));
    if (entry) entry.expires = Math.min(entry.expires ?? Infinity, Date.now() + this.retryAfterMs);
  }

  private async reflect(target: Target, service: string, timeoutMs: number): Promise<protobuf.Root> {
    if (target.hosts.length === 0)
      throw new GrpcFailure('UNAVAILABLE', `upstream ${target.cluster} has no hosts`, grpc.status.UNAVAILABLE);
    let files: FileDescriptor[] | undefined;
    let lastFailure: GrpcFailure | undefined;
    for (const host of target.hosts) {
      try {
        files = await reflectService(this.client(host), service, timeoutMs, target.cluster);
        break;
      } catch (err) {
        // A host that is down: another may answer.
        if (!(err instanceof GrpcFailure) || err.grpcCode !== grpc.status.UNAVAILABLE) throw err;
        lastFailure = err;
      }
    }
    if (!files) throw lastFailure!;
    let root: protobuf.Root;
    try {
      root = fromDescriptor({ file: files });
    } catch (err) {
      throw new GrpcFailure(
        'GRPC_DESCRIPTOR_UNAVAILABLE',
        `the descriptors upstream ${target.cluster} serves for ${service} do not load: ${(err as Error).message}`,
      );
    }
    return root;
  }

  /** One unary call of already encoded bytes; resolves to the response bytes, rejects with GrpcFailure. A span of the request's trace, which the upstream joins (traceparent). */
  call(
    target: Target,
    path: string,
    request: Buffer,
    metadata: grpc.Metadata,
    timeoutMs: number,
    signal?: ClientSignal,
  ): Promise<Buffer> {
    if (!this.tracer.on) return this.send(target, path, request, metadata, timeoutMs, signal);
    return this.tracer.span(
      `gRPC ${path.slice(1)}`,
      (span) => {
        const carrier: Record<string, string> = {};
        this.tracer.inject(carrier);
        const md = metadata.clone();
        for (const [k, v] of Object.entries(carrier)) md.set(k, v);
        span.setAttribute('rpc.system', 'grpc');
        span.setAttribute('rpc.method', path);
        span.setAttribute('sluice.upstream', target.cluster);
        return this.send(target, path, request, md, timeoutMs, signal);
      },
      'client',
    );
  }

  private send(
    target: Target,
    path: string,
    request: Buffer,
    metadata: grpc.Metadata,
    timeoutMs: number,
    signal?: ClientSignal,
  ): Promise<Buffer> {
    const client = this.client(this.pick(target));
    return new Promise((resolve, reject) => {
      const onAbort = () => call.cancel();
      const call = client.makeUnaryRequest(
        path,
        identity,
        identity,
        request,
        metadata,
        { deadline: Date.now() + timeoutMs },
        (err, res) => {
          signal?.removeEventListener('abort', onAbort);
          if (err) reject(GrpcFailure.fromStatus(err, `gRPC ${path} on upstream ${target.cluster}`, timeoutMs));
          else resolve(res!);
        },
      );
      if (signal?.aborted) call.cancel();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  close(): void {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }
}

export const GRPC_SERVICES_KEY = 'grpc.services';

/** The server-wide gRPC services. */
export function grpcServices(deps: ResolverDeps): GrpcServices {
  return deps.shared(GRPC_SERVICES_KEY, () => new GrpcServices(deps.tracer ? { tracer: deps.tracer } : {}));
}
