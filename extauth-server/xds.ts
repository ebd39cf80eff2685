/**
 * ADS client (state of the world) for `sluice.extauth.v1.AuthConfig`
 * resources served by `sluice serve`: subscribes with a wildcard request,
 * ACKs each response it applies, NACKs (error_detail, previous version kept)
 * one it cannot parse or apply, and reconnects with backoff when the stream ends.
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { parseAuthConfig, type AuthConfig, type PoolSettings } from './config.js';
import { AUTHCONFIG_TYPE_URL, adsClient, decodeAuthConfig } from './protos.js';

interface Any {
  type_url?: string;
  value?: Buffer;
}

interface DiscoveryResponse {
  version_info?: string;
  resources?: Any[];
  type_url?: string;
  nonce?: string;
}

export interface XdsClientOptions {
  address: string;
  nodeId: string;
  logger: Logger;
  poolDefaults: PoolSettings;
  /** Applies a set that parsed, all or nothing; throwing NACKs it. */
  onConfigs(configs: AuthConfig[]): void;
}

export function decodeResources(resources: Any[], poolDefaults: PoolSettings): AuthConfig[] {
  return resources.map((r, i) => {
    if (r.type_url !== AUTHCONFIG_TYPE_URL) throw new Error(`resource ${i} has type ${r.type_url}, want ${AUTHCONFIG_TYPE_URL}`);
    return parseAuthConfig(decodeAuthConfig(r.value ?? Buffer.alloc(0)), `resource ${i}`, poolDefaults);
  });
}

export class XdsClient {
  private readonly client: grpc.Client & Record<string, (...a: unknown[]) => unknown>;
  private stream?: grpc.ClientDuplexStream<unknown, DiscoveryResponse>;
  private version = '';
  private backoffMs = 250;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly opts: XdsClientOptions) {
    const Ads = adsClient();
    this.client = new Ads(opts.address, grpc.credentials.createInsecure()) as XdsClient['client'];
  }

  start(): void {
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.stream?.cancel();
    this.client.close();
  }

  private request(extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      node: { id: this.opts.nodeId, cluster: 'sluice-extauth', user_agent_name: 'sluice-extauth' },
      type_url: AUTHCONFIG_TYPE_URL,
      resource_names: [],
      version_info: this.version,
      ...extra,
    };
  }

  private connect(): void {
    if (this.stopped) return;
    const stream = this.client.StreamAggregatedResources() as grpc.ClientDuplexStream<unknown, DiscoveryResponse>;
    this.stream = stream;
    stream.on('data', (resp: DiscoveryResponse) => this.onResponse(stream, resp));
    stream.on('error', (err: grpc.ServiceError) => {
      if (!this.stopped) this.opts.logger.warn({ xds: this.opts.address, code: err.code, err: err.details }, 'xDS stream failed');
    });
    // 'status' ends every call, OK or not; 'close' would wait for our side to end too.
    stream.on('status', () => this.reconnectLater(stream));
    stream.write(this.request());
  }

  private reconnectLater(stream: grpc.ClientDuplexStream<unknown, DiscoveryResponse>): void {
    if (this.stopped || stream !== this.stream) return;
    this.stream = undefined;
    stream.end();
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, 5000);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  private onResponse(stream: grpc.ClientDuplexStream<unknown, DiscoveryResponse>, resp: DiscoveryResponse): void {
    if (resp.type_url !== AUTHCONFIG_TYPE_URL) return;
    this.backoffMs = 250;
    try {
      // onConfigs applies all or nothing: when it throws, the previous set is still in force.
      this.opts.onConfigs(decodeResources(resp.resources ?? [], this.opts.poolDefaults));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.opts.logger.error({ version: resp.version_info, err: message }, 'rejected AuthConfigs from xDS');
      stream.write(this.request({ response_nonce: resp.nonce, error_detail: { code: grpc.status.INVALID_ARGUMENT, message } }));
      return;
    }
    this.version = resp.version_info ?? '';
    stream.write(this.request({ response_nonce: resp.nonce }));
  }
}
