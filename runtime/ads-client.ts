/**
 * A state-of-the-world ADS client for one resource type, as the sidecars use
 * it against `sluice serve`: it subscribes with a wildcard request (every
 * resource of the type), decodes and applies each response as a whole set,
 * ACKs it (version and nonce), or NACKs it (error_detail INVALID_ARGUMENT,
 * the previous version kept and reported) when decoding or applying throws.
 * When the stream ends it opens a new one after a backoff of 0.25 s doubling
 * to 5 s, reset by any response.
 */
import * as grpc from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import type { Logger } from 'pino';
import { decodeMessage } from '../contract/codec.js';
import { ADS_SERVICE, discoveryTypes } from '../contract/discovery.js';

export interface AnyResource {
  type_url: string;
  value: Uint8Array;
}

export interface AdsClientOptions<T> {
  /** host:port of `sluice serve`'s xDS server. */
  address: string;
  /** The node this client is; `cluster` is also sent as user_agent_name. */
  node: { id: string; cluster: string };
  typeUrl: string;
  logger: Logger;
  /** The resources of one response as the sidecar's configuration; throwing NACKs the response (the previous set stays). */
  decode(resources: AnyResource[]): T;
  /** Puts a decoded set in force, all or nothing; throwing or rejecting NACKs it (the previous set stays). */
  apply(config: T): void | Promise<void>;
}

const INITIAL_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 5000;

/**
 * grpc-js's own reconnect backoff (1 s growing to 120 s by default) would
 * leave a sidecar minutes behind a control plane back from a long outage:
 * capped as our stream backoff is, and with wait-for-ready calls (below), a
 * new stream starts within about 5 s of the server answering again.
 */
const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.initial_reconnect_backoff_ms': INITIAL_BACKOFF_MS,
  'grpc.max_reconnect_backoff_ms': MAX_BACKOFF_MS,
  // Responses carry whole sets (a sidecar's every resource): allow as much as the server accepts.
  'grpc.max_receive_message_length': 16 * 1024 * 1024,
};

interface DiscoveryResponse {
  version_info: string;
  resources: AnyResource[];
  type_url: string;
  nonce: string;
}

type Stream = grpc.ClientDuplexStream<Record<string, unknown>, DiscoveryResponse>;

export class AdsClient<T> {
  private readonly client: grpc.Client;
  private readonly requestType: protobuf.Type;
  private readonly responseType: protobuf.Type;
  private stream?: Stream;
  /** version_info of the set in force ('' before the first). */
  private version = '';
  private backoffMs = INITIAL_BACKOFF_MS;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  /** Responses are decoded and applied one at a time, in order, also across streams. */
  private applying: Promise<void> = Promise.resolve();
  private configured = false;
  private readonly firstConfig: Promise<void>;
  private resolveFirst!: () => void;
  /** Whether the channel is known to be unreachable (logged once per outage). */
  private unreachable = false;

  constructor(private readonly opts: AdsClientOptions<T>) {
    const types = discoveryTypes();
    this.requestType = types.DiscoveryRequest;
    this.responseType = types.DiscoveryResponse;
    this.client = new grpc.Client(opts.address, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
    this.firstConfig = new Promise((resolve) => (this.resolveFirst = resolve));
  }

  /** True once a set was applied: the sidecar has a configuration to serve. */
  get hasConfig(): boolean {
    return this.configured;
  }

  /** Resolves when the first set is applied (at once if one already was). */
  whenConfigured(): Promise<void> {
    return this.firstConfig;
  }

  start(): void {
    this.watchChannel();
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.stream?.cancel();
    this.client.close();
  }

  private request(extra: Record<string, unknown> = {}): Record<string, unknown> {
    const { id, cluster } = this.opts.node;
    return {
      node: { id, cluster, user_agent_name: cluster },
      type_url: this.opts.typeUrl,
      resource_names: [],
      version_info: this.version,
      ...extra,
    };
  }

  private connect(): void {
    if (this.stopped) return;
    const stream = this.client.makeBidiStreamRequest(
      `${ADS_SERVICE}/StreamAggregatedResources`,
      (m: Record<string, unknown>) => Buffer.from(this.requestType.encode(this.requestType.fromObject(m)).finish()),
      (b: Buffer) => this.responseType.decode(b) as unknown as DiscoveryResponse,
      // Wait for the channel instead of failing while the control plane is away: the stream starts when it answers.
      new grpc.Metadata({ waitForReady: true }),
    ) as Stream;
    this.stream = stream;
    stream.on('data', (resp: DiscoveryResponse) => {
      this.applying = this.applying.then(() => this.onResponse(stream, resp));
    });
    stream.on('error', (err: grpc.ServiceError) => {
      if (!this.stopped)
        this.opts.logger.warn({ xds: this.opts.address, code: err.code, err: err.details }, 'xDS stream failed');
    });
    // 'status' ends every call, OK or not; 'close' would wait for our side to end too.
    stream.on('status', () => this.reconnectLater(stream));
    stream.write(this.request());
  }

  private reconnectLater(stream: Stream): void {
    if (this.stopped || stream !== this.stream) return;
    this.stream = undefined;
    stream.end();
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  private async onResponse(stream: Stream, resp: DiscoveryResponse): Promise<void> {
    if (this.stopped || resp.type_url !== this.opts.typeUrl) return;
    this.backoffMs = INITIAL_BACKOFF_MS;
    const version = resp.version_info;
    try {
      const resources = resp.resources.map((r) => ({ type_url: r.type_url, value: r.value }));
      await this.opts.apply(this.opts.decode(resources));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.opts.logger.error(
        { typeUrl: this.opts.typeUrl, version, err: message },
        'rejected a configuration from xDS; the previous one stays',
      );
      this.reply(stream, { response_nonce: resp.nonce, error_detail: { code: grpc.status.INVALID_ARGUMENT, message } });
      return;
    }
    this.version = version;
    this.opts.logger.info(
      { typeUrl: this.opts.typeUrl, version, resources: resp.resources.length },
      'applied a configuration from xDS',
    );
    if (!this.configured) {
      this.configured = true;
      this.resolveFirst();
    }
    this.reply(stream, { response_nonce: resp.nonce });
  }

  /** ACK or NACK on the stream the response came on, unless it has ended since (a new stream asks afresh). */
  private reply(stream: Stream, extra: Record<string, unknown>): void {
    if (this.stopped || stream !== this.stream) return;
    stream.write(this.request(extra));
  }

  /** Logs when the control plane becomes unreachable and when it is back, once each per outage. */
  private watchChannel(): void {
    const channel = this.client.getChannel();
    const watch = (last: grpc.connectivityState) => {
      channel.watchConnectivityState(last, Infinity, () => {
        const state = channel.getConnectivityState(false);
        if (this.stopped || state === grpc.connectivityState.SHUTDOWN) return;
        if (state === grpc.connectivityState.TRANSIENT_FAILURE && !this.unreachable) {
          this.unreachable = true;
          this.opts.logger.warn({ xds: this.opts.address }, 'cannot reach the xDS server; retrying every 5 s at most');
        } else if (state === grpc.connectivityState.READY && this.unreachable) {
          this.unreachable = false;
          this.opts.logger.info({ xds: this.opts.address }, 'reached the xDS server again');
        }
        watch(state);
      });
    };
    watch(channel.getConnectivityState(false));
  }
}

/**
 * Each Any of a response as proto3 JSON (snake_case names, int64 as strings,
 * enums by name), the form the sidecars' config files use. `typeName` is the
 * full message name (a type URL works too); an Any of another type throws.
 */
export function decodeAnys(typeName: string, resources: AnyResource[]): Record<string, unknown>[] {
  const want = typeName.slice(typeName.lastIndexOf('/') + 1);
  return resources.map((r, i) => {
    const got = r.type_url.slice(r.type_url.lastIndexOf('/') + 1);
    if (got !== want) throw new Error(`resource ${i} has type ${r.type_url}, want type.googleapis.com/${want}`);
    try {
      return decodeMessage(want, r.value);
    } catch (err) {
      throw new Error(`resource ${i} is not a valid ${want}: ${(err as Error).message}`);
    }
  });
}
