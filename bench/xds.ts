/**
 * `npm run bench -- xds`: 1,000 VirtualServices (the compile benchmark's
 * generator: 5 routes each, half with JWT + RBAC) served by the real xDS
 * server; 100, then 500 ADS clients (separate HTTP/2 connections, in a child
 * process so the server has its own event loop and RSS) subscribe to CDS,
 * EDS, LDS and RDS and ACK everything. Then one VirtualService changes:
 * recompile, and the time from the new snapshot to each client's ACK of the
 * new route version (p50, p99, all), over 5 rounds. SotW and delta
 * (`--protocol=sotw,delta`, `--clients=100,500`); each protocol and count
 * runs in a fresh server process, whose peak RSS is reported. Memory per
 * client: V8 heap and buffers retained after a full GC once the clients have
 * synced, minus the same just before they connected, divided by their number.
 *
 * Peer (the floor), measured first in the same process on the same clients:
 * a bare grpc-js server that encodes the same RDS response once and writes it
 * to every stream, waiting for the same ACKs; no protocol logic. Ratio =
 * sluice / floor, for "all ACKed". Target: 500 clients all updated within
 * 1 s, RSS under 1 GiB.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { AdsClient } from '../harness/xds-client.js';
import { TYPE_URL } from '../contract/names.js';
import { DEFAULT_OPTIONS } from '../compiler/translate/output.js';
import { serveEnvironment } from '../control-plane/memory.js';
import { settledMemory } from '../harness/memory.js';
import { ControlPlane } from '../control-plane/control.js';
import { discoveryTypes } from '../contract/discovery.js';
import { XdsServer } from '../control-plane/server/server.js';
import { generate } from './compile.js';

const CHILD_FLAG = '--xds-clients';
const PHASE_FLAG = '--xds-phase';
const ROUNDS = 5;

export interface Plan {
  port: number;
  clients: number;
  protocol: 'sotw' | 'delta';
  subscriptions: Array<{ type_url: string; resource_names: string[] }>;
}

// ------------------------------------------------------------------ clients (child process)

async function clientsMain(): Promise<void> {
  const open: Array<{ client: grpc.Client; call: grpc.ClientDuplexStream<object, any> }> = [];
  process.on('message', (msg: { cmd: 'connect'; plan: Plan } | { cmd: 'close' }) => {
    if (msg.cmd === 'close') {
      for (const { client, call } of open.splice(0)) {
        call.cancel();
        client.close();
      }
      process.send!({ event: 'closed' });
      return;
    }
    const { plan } = msg;
    let synced = 0;
    for (let i = 0; i < plan.clients; i++) {
      // A local subchannel pool: one HTTP/2 connection per client, as separate Envoys have. A large
      // HTTP/2 window, as Envoy advertises (256 MiB by default), instead of Node's 64 KiB.
      const client = new AdsClient(`127.0.0.1:${plan.port}`, grpc.credentials.createInsecure(), {
        'grpc.use_local_subchannel_pool': 1,
        'grpc.max_receive_message_length': 64 << 20,
        'grpc-node.flow_control_window': 16 << 20,
      });
      const delta = plan.protocol === 'delta';
      const call: grpc.ClientDuplexStream<object, any> = delta
        ? client.DeltaAggregatedResources()
        : client.StreamAggregatedResources();
      const pending = new Set(plan.subscriptions.map((s) => s.type_url));
      const namesOf = new Map(plan.subscriptions.map((s) => [s.type_url, s.resource_names]));
      const node = { id: `bench-${i}`, cluster: 'bench' };
      call.on('data', (r: { type_url: string; version_info: string; nonce: string }) => {
        call.write(
          delta
            ? { type_url: r.type_url, response_nonce: r.nonce }
            : {
                type_url: r.type_url,
                version_info: r.version_info,
                response_nonce: r.nonce,
                resource_names: namesOf.get(r.type_url),
              },
        );
        if (pending.delete(r.type_url) && pending.size === 0 && ++synced === plan.clients)
          process.send!({ event: 'synced' });
      });
      call.on('error', () => undefined);
      for (const s of plan.subscriptions)
        call.write(
          delta
            ? { node, type_url: s.type_url, resource_names_subscribe: s.resource_names }
            : { node, type_url: s.type_url, resource_names: s.resource_names },
        );
      open.push({ client, call });
    }
  });
  process.send!({ event: 'ready' });
}

export class ClientFleet {
  private constructor(private readonly child: ChildProcess) {}

  static async start(): Promise<ClientFleet> {
    // stdout is the phase's JSON result: the clients must not write to it.
    const child = fork(fileURLToPath(import.meta.url), [CHILD_FLAG], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    await waitFor(child, 'ready');
    return new ClientFleet(child);
  }

  async connect(plan: Plan): Promise<void> {
    const synced = waitFor(this.child, 'synced');
    this.child.send({ cmd: 'connect', plan });
    await synced;
  }

  async disconnect(): Promise<void> {
    const closed = waitFor(this.child, 'closed');
    this.child.send({ cmd: 'close' });
    await closed;
  }

  stop(): void {
    this.child.kill();
  }
}

function waitFor(child: ChildProcess, event: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { event: string }) => {
      if (m.event !== event) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve();
    };
    const onExit = (code: number) => reject(new Error(`client process exited (${code}) before "${event}"`));
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

// ------------------------------------------------------------------ the floor peer

/** Writes one pre-encoded RDS response to every stream and counts the ACKs that name its nonce. */
class FloorServer {
  private readonly server = new grpc.Server();
  private readonly streams = new Set<grpc.ServerDuplexStream<any, Buffer>>();
  private awaited: { nonce: string; left: number; done: () => void } | undefined;
  port = 0;

  constructor(private initial: Buffer) {
    const { DiscoveryRequest } = discoveryTypes();
    this.server.addService(
      {
        StreamAggregatedResources: {
          path: '/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources',
          requestStream: true,
          responseStream: true,
          requestDeserialize: (b: Buffer) => DiscoveryRequest.toObject(DiscoveryRequest.decode(b)),
          requestSerialize: (m: any) => m,
          responseSerialize: (b: Buffer) => b,
          responseDeserialize: (b: Buffer) => b,
        },
      },
      {
        StreamAggregatedResources: (call: grpc.ServerDuplexStream<any, Buffer>) => {
          this.streams.add(call);
          call.on('data', (req: { response_nonce?: string }) => {
            if (!req.response_nonce) call.write(Buffer.concat([this.initial, nonceField('0')]));
            else if (this.awaited && req.response_nonce === this.awaited.nonce && --this.awaited.left === 0)
              this.awaited.done();
          });
          call.on('error', () => undefined);
          call.on('close', () => this.streams.delete(call));
        },
      },
    );
  }

  async listen(): Promise<void> {
    this.port = await new Promise((res, rej) =>
      this.server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))),
    );
  }

  /** Sends `body` to every stream; resolves when all have ACKed it. */
  push(body: Buffer, nonce: string): Promise<void> {
    return new Promise((done) => {
      this.awaited = { nonce, left: this.streams.size, done };
      const message = Buffer.concat([body, nonceField(nonce)]);
      for (const s of this.streams) s.write(message);
    });
  }

  close(): void {
    this.server.forceShutdown();
  }
}

function nonceField(nonce: string): Buffer {
  return Buffer.from([(5 << 3) | 2, nonce.length, ...Buffer.from(nonce)]);
}

// ------------------------------------------------------------------ the benchmark

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export const mib = (bytes: number) => (bytes / 1048576).toFixed(1);

interface Figures {
  protocol: 'sotw' | 'delta';
  clients: number;
  summary: string;
  /** Median over rounds of the time until every client ACKed. */
  all: number;
  allMax: number;
  p50: number;
  p99: number;
  floor: number;
  recompile: number;
  peakRss: number;
  retainedPerClient: number;
}

/** One protocol and client count, in a process of its own (run with PHASE_FLAG), so no phase inherits another's heap. */
async function measurePhase(protocol: 'sotw' | 'delta', n: number): Promise<Figures> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-bench-xds-'));
  const fleet = await ClientFleet.start();
  const control = new ControlPlane({
    paths: [dir],
    compileOptions: DEFAULT_OPTIONS,
    logger: pino({ level: 'silent' }),
  });
  const server = new XdsServer(control.cache);
  try {
    generate(dir, 1000);
    const first = await control.start();
    control.close(); // the benchmark edits and recompiles itself; no watcher timing in the figures
    if (!first.ok) throw new Error(`bench input did not compile: ${first.diagnostics[0]?.message}`);
    const port = await server.listen('127.0.0.1', 0);
    const snapshot = control.snapshot!;
    const route = snapshot.type(TYPE_URL.route)!;
    const routeName = [...route.resources.keys()][0];
    const edsNames = [...snapshot.type(TYPE_URL.endpoint)!.resources.keys()];
    const summary = `1000 virtual services: ${snapshot.type(TYPE_URL.cluster)!.resources.size} clusters, ${edsNames.length} EDS, RDS ${mib(route.resources.get(routeName)!.value.length)} MiB; first compile ${first.durationMs.toFixed(0)} ms`;

    // The floor first, on the same clients: the RDS response encoded once, the same bytes sluice sends.
    const { DiscoveryResponse } = discoveryTypes();
    const body = Buffer.from(
      DiscoveryResponse.encode(
        DiscoveryResponse.fromObject({
          version_info: route.version,
          type_url: TYPE_URL.route,
          resources: [{ type_url: TYPE_URL.route, value: route.resources.get(routeName)!.value }],
        }),
      ).finish(),
    );
    const floor = new FloorServer(body);
    await floor.listen();
    await fleet.connect({
      port: floor.port,
      clients: n,
      protocol: 'sotw',
      subscriptions: [{ type_url: TYPE_URL.route, resource_names: [routeName] }],
    });
    const floorTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const t = performance.now();
      await floor.push(body, `f${round}`);
      floorTimes.push(performance.now() - t);
    }
    await fleet.disconnect();
    floor.close();

    const subscriptions = [
      { type_url: TYPE_URL.cluster, resource_names: [] },
      ...(edsNames.length ? [{ type_url: TYPE_URL.endpoint, resource_names: edsNames }] : []),
      { type_url: TYPE_URL.listener, resource_names: [] },
      { type_url: TYPE_URL.route, resource_names: [routeName] },
    ];
    const before = await settledMemory();
    await fleet.connect({ port, clients: n, protocol, subscriptions });
    const after = await settledMemory();

    const file = path.join(dir, 'resources-0.yaml');
    const original = readFileSync(file, 'utf8');
    const allTimes: number[] = [];
    const perClient: number[] = [];
    const recompiles: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      writeFileSync(file, original.replace('prefix: /r0}', `prefix: /r0-edit${round}}`));
      let t0 = 0;
      let expected = '';
      const acks: number[] = [];
      const allAcked = new Promise<void>((resolve) => {
        const onAck = (e: { typeUrl: string; version: string }) => {
          if (e.typeUrl !== TYPE_URL.route || e.version !== expected) return;
          acks.push(performance.now() - t0);
          if (acks.length === n) {
            server.off('ack', onAck);
            resolve();
          }
        };
        server.on('ack', onAck);
      });
      // Registered before the streams' watchers are notified, so t0 precedes the first write.
      const unwatch = control.cache.watch(() => {
        t0 = performance.now();
        expected = control.snapshot!.type(TYPE_URL.route)!.version;
      });
      const c0 = performance.now();
      await control.recompile();
      recompiles.push(performance.now() - c0);
      unwatch();
      await allAcked;
      allTimes.push(Math.max(...acks));
      perClient.push(...acks);
    }
    await fleet.disconnect();
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    perClient.sort((a, b) => a - b);
    return {
      protocol,
      clients: n,
      summary,
      all: median(allTimes),
      allMax: Math.max(...allTimes),
      p50: percentile(perClient, 50),
      p99: percentile(perClient, 99),
      floor: median(floorTimes),
      recompile: median(recompiles),
      peakRss: process.resourceUsage().maxRSS * 1024,
      retainedPerClient: (after.retained - before.retained) / n,
    };
  } finally {
    fleet.stop();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(args: string[]): Promise<void> {
  const counts = (args.find((a) => a.startsWith('--clients='))?.slice(10) ?? '100,500').split(',').map(Number);
  const protocols = (args.find((a) => a.startsWith('--protocol='))?.slice(11) ?? 'sotw,delta').split(',') as Array<
    'sotw' | 'delta'
  >;
  const self = fileURLToPath(import.meta.url);
  let header = false;
  for (const protocol of protocols) {
    for (const n of counts) {
      const f = JSON.parse(
        execFileSync(process.execPath, [self, PHASE_FLAG, protocol, String(n)], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'inherit'],
          env: serveEnvironment(),
        }),
      ) as Figures;
      if (!header) {
        console.log(f.summary);
        console.log(
          'protocol | clients | all ACKed (median of 5 rounds) | per client p50 | p99 | floor (same bytes) | ratio | recompile | peak server RSS | retained per client',
        );
        header = true;
      }
      console.log(
        `${protocol.padStart(8)} | ${String(n).padStart(7)} | ${f.all.toFixed(0).padStart(6)} ms (max ${f.allMax.toFixed(0)}) | ${f.p50.toFixed(0).padStart(6)} ms | ${f.p99.toFixed(0).padStart(4)} ms | ${f.floor.toFixed(0).padStart(6)} ms | ${(f.all / f.floor).toFixed(2)}x | ${f.recompile.toFixed(0)} ms | ${mib(f.peakRss)} MiB | ${(f.retainedPerClient / 1024).toFixed(0)} KiB`,
      );
      if (n >= 500)
        console.log(
          `target (${protocol}): ${n} clients all updated within 1 s: ${f.all < 1000 ? 'met' : 'NOT met'}; peak server RSS under 1 GiB: ${f.peakRss < 1 << 30 ? 'met' : 'NOT met'}`,
        );
    }
  }
}

if (process.argv[2] === CHILD_FLAG) await clientsMain();
if (process.argv[2] === PHASE_FLAG)
  process.stdout.write(
    JSON.stringify(await measurePhase(process.argv[3] as 'sotw' | 'delta', Number(process.argv[4]))),
  );
