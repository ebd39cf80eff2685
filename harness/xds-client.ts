/**
 * A real ADS client for the conformance suite: @grpc/grpc-js with the
 * discovery service loaded by @grpc/proto-loader from Envoy's own protos
 * (independent of the server's hand-written serializers). Responses queue up
 * and tests await them: no sleeps.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { INCLUDE_DIRS, lookupType } from '../contract/envoy.js';

const definition = protoLoader.loadSync(
  [
    'envoy/service/discovery/v3/ads.proto',
    'envoy/service/route/v3/rds.proto',
    'envoy/service/cluster/v3/cds.proto',
    'envoy/service/extension/v3/config_discovery.proto',
  ],
  {
    includeDirs: [...INCLUDE_DIRS],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    arrays: true,
  },
);
type ClientCtor = new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: grpc.ChannelOptions,
) => grpc.Client & {
  StreamAggregatedResources(): grpc.ClientDuplexStream<object, RawResponse>;
  DeltaAggregatedResources(): grpc.ClientDuplexStream<object, RawDeltaResponse>;
};
const pkg = grpc.loadPackageDefinition(definition) as any;
/** The generated ADS client class (the benchmark's clients use it too). */
export const AdsClient: ClientCtor = pkg.envoy.service.discovery.v3.AggregatedDiscoveryService;

/** The discovery services of one type an Envoy without ADS uses (its config_source names the server's cluster), by method suffix. */
const SINGLE_TYPE_CLIENTS = {
  Routes: pkg.envoy.service.route.v3.RouteDiscoveryService,
  Clusters: pkg.envoy.service.cluster.v3.ClusterDiscoveryService,
  ExtensionConfigs: pkg.envoy.service.extension.v3.ExtensionConfigDiscoveryService,
} as const;
export type SingleType = keyof typeof SINGLE_TYPE_CLIENTS;

interface RawAny {
  type_url: string;
  value: Buffer;
}
interface RawResponse {
  version_info: string;
  resources: RawAny[];
  type_url: string;
  nonce: string;
}
interface RawDeltaResponse {
  system_version_info: string;
  resources: { name: string; version: string; aliases: string[]; resource: RawAny | null }[];
  type_url: string;
  removed_resources: string[];
  nonce: string;
}

export type Json = Record<string, any>;

export function decodeAny(any: RawAny): Json {
  const type = lookupType(any.type_url);
  return type.toObject(type.decode(any.value), { enums: String, longs: String, defaults: false, json: true });
}

export interface Response {
  version_info: string;
  type_url: string;
  nonce: string;
  resources: Json[];
}

export interface DeltaResponse {
  system_version_info: string;
  type_url: string;
  nonce: string;
  /** `json` is the decoded resource, `{}` when the entry has none (VHDS: an unknown host). */
  resources: { name: string; version: string; aliases: string[]; hasResource: boolean; json: Json }[];
  removed_resources: string[];
}

/** Messages in arrival order; `next()` resolves with the next one not yet taken. */
class Inbox<T> {
  readonly all: T[] = [];
  private taken = 0;
  private waiters: Array<{ resolve: (m: T) => void; reject: (e: Error) => void }> = [];
  private failure: Error | undefined;
  ended = false;

  push(m: T): void {
    this.all.push(m);
    const w = this.waiters.shift();
    if (w) {
      this.taken++;
      w.resolve(m);
    }
  }

  fail(err: Error): void {
    this.failure = err;
    for (const w of this.waiters.splice(0)) w.reject(err);
  }

  next(): Promise<T> {
    if (this.taken < this.all.length) return Promise.resolve(this.all[this.taken++]);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** Messages received but not yet taken. */
  get pending(): number {
    return this.all.length - this.taken;
  }
}

const typeName = (url: string) => url.slice(url.lastIndexOf('.') + 1);

abstract class BaseClient<Raw, Msg> {
  protected readonly client: InstanceType<ClientCtor>;
  protected readonly stream: grpc.ClientDuplexStream<object, Raw>;
  readonly inbox = new Inbox<Msg>();
  /** When each message of `inbox.all` arrived (performance.now()), before its resources were decoded. */
  readonly arrivedAt: number[] = [];
  /** Resolves when the server ends the stream (status OK) or it fails. */
  readonly finished: Promise<grpc.StatusObject>;

  constructor(
    port: number,
    open: (c: InstanceType<ClientCtor>) => grpc.ClientDuplexStream<object, Raw>,
    decode: (r: Raw) => Msg,
    ctor: ClientCtor = AdsClient,
  ) {
    this.client = new ctor(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    this.stream = open(this.client);
    this.stream.on('data', (raw: Raw) => {
      this.arrivedAt.push(performance.now());
      this.inbox.push(decode(raw));
    });
    this.finished = new Promise((resolve) => {
      this.stream.on('status', (status) => {
        this.inbox.ended = true;
        this.inbox.fail(new Error(`stream ended: ${status.code} ${status.details}`));
        resolve(status);
      });
    });
    this.stream.on('error', () => undefined);
  }

  next(): Promise<Msg> {
    return this.inbox.next();
  }

  close(): void {
    this.stream.cancel();
    this.client.close();
  }
}

/** The node a client sends: its id, and node metadata `role` (the proxy of a fleet) when given. */
function nodeOf(id: string, role?: string): object {
  return {
    id,
    cluster: 'test',
    ...(role !== undefined ? { metadata: { fields: { role: { stringValue: role } } } } : {}),
  };
}

export class SotwClient extends BaseClient<RawResponse, Response> {
  constructor(
    port: number,
    readonly nodeId = 'test-node',
    readonly role?: string,
    /** A discovery service of one type instead of ADS. */
    via?: SingleType,
  ) {
    super(
      port,
      (c) => (via ? (c as any)[`Stream${via}`]() : c.StreamAggregatedResources()),
      (raw) => ({
        version_info: raw.version_info,
        type_url: raw.type_url,
        nonce: raw.nonce,
        resources: raw.resources.map(decodeAny),
      }),
      via ? SINGLE_TYPE_CLIENTS[via] : AdsClient,
    );
  }

  send(request: {
    type_url: string;
    version_info?: string;
    resource_names?: string[];
    response_nonce?: string;
    error_detail?: { code: number; message: string };
    node?: { id: string };
  }): void {
    this.stream.write({ node: nodeOf(this.nodeId, this.role), ...request });
  }

  ack(r: Response, resource_names: string[] = []): void {
    this.send({ type_url: r.type_url, version_info: r.version_info, response_nonce: r.nonce, resource_names });
  }

  nack(r: Response, previousVersion: string, message: string, resource_names: string[] = []): void {
    this.send({
      type_url: r.type_url,
      version_info: previousVersion,
      response_nonce: r.nonce,
      resource_names,
      error_detail: { code: 3, message },
    });
  }

  /** Next response, which must be of `typeUrl`. */
  async expect(typeUrl: string): Promise<Response> {
    const r = await this.next();
    if (r.type_url !== typeUrl)
      throw new Error(`expected a ${typeName(typeUrl)} response, got ${typeName(r.type_url)} (${r.version_info})`);
    return r;
  }
}

export class DeltaClient extends BaseClient<RawDeltaResponse, DeltaResponse> {
  constructor(
    port: number,
    readonly nodeId = 'test-node',
    readonly role?: string,
  ) {
    super(
      port,
      (c) => c.DeltaAggregatedResources(),
      (raw) => ({
        system_version_info: raw.system_version_info,
        type_url: raw.type_url,
        nonce: raw.nonce,
        removed_resources: raw.removed_resources,
        resources: raw.resources.map((r) => ({
          name: r.name,
          version: r.version,
          aliases: r.aliases ?? [],
          hasResource: !!r.resource,
          json: r.resource ? decodeAny(r.resource) : {},
        })),
      }),
    );
  }

  send(request: {
    type_url: string;
    resource_names_subscribe?: string[];
    resource_names_unsubscribe?: string[];
    initial_resource_versions?: Record<string, string>;
    response_nonce?: string;
    error_detail?: { code: number; message: string };
  }): void {
    this.stream.write({ node: nodeOf(this.nodeId, this.role), ...request });
  }

  ack(r: DeltaResponse): void {
    this.send({ type_url: r.type_url, response_nonce: r.nonce });
  }

  async expect(typeUrl: string): Promise<DeltaResponse> {
    const r = await this.next();
    if (r.type_url !== typeUrl)
      throw new Error(`expected a ${typeName(typeUrl)} response, got ${typeName(r.type_url)}`);
    return r;
  }
}
