/**
 * `npm run bench -- scale`: one edit among 10,000 VirtualServices (5 routes
 * each; JWT + RBAC on half, ext_authz on a tenth; 20 files of 500 plus the
 * AuthConfigs) reaching every Envoy. `serve`'s control loop (file watcher
 * included) and xDS server run in this process; 100, then 500 ADS clients
 * (the xDS benchmark's, in a child process) subscribe to CDS, EDS, LDS and
 * RDS, and with VHDS to the route configuration's virtual hosts, and ACK
 * everything. Two ways to serve the route table (`--route-table=vhds,rds`):
 * VHDS (`serve --vhds`, delta clients: an edit sends one virtual host) and
 * RDS (SotW clients: an edit sends the whole route configuration).
 * Then 20 single-file edits in a row, each a saved
 * file (write a temporary file, rename it over, as editors do) changing one
 * route of one VirtualService: the time from the save to the new snapshot
 * (set in the cache, before any push), and to the last client's ACK of the
 * new route configuration or virtual host. Peer, in the
 * same run: a full recompile of the same input (what every edit cost
 * before). Memory: RSS right after the edits, and steady (once serve has
 * gone quiet and run its idle collections, clients still connected); V8
 * heap and buffers (after a full GC) before and after 1,000 more edits of
 * the control plane, the clients gone (`--leak-edits=N`, first phase only).
 * Each phase runs in a process of its own.
 *
 * Targets: save-to-snapshot p50 < 150 ms; save-to-last-ACK p50 < 1 s with
 * 500 clients; steady RSS < 400 MiB; no heap growth over 1,000 edits.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { TYPE_URL } from '../contract/names.js';
import { Compiler } from '../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../compiler/translate/output.js';
import { collectWhenQuiet, type IdleCollector, serveEnvironment } from '../control-plane/memory.js';
import { ControlPlane, type CompileOutcome } from '../control-plane/control.js';
import { XdsServer } from '../control-plane/server/server.js';
import { SnapshotEncoder } from '../control-plane/cache/snapshot.js';
import { DEBOUNCE_MS } from '../control-plane/watch.js';
import { generate } from './compile.js';
import { settledMemory } from '../harness/memory.js';
import { ClientFleet, mib, percentile } from './xds.js';

const PHASE_FLAG = '--scale-phase';
const VIRTUAL_SERVICES = 10_000;
const EDITS = 20;
const FILES = VIRTUAL_SERVICES / 500;

/** How the route table is served: one RouteConfiguration over RDS (SotW clients), or its virtual hosts one by one over VHDS (delta clients, serve --vhds). */
type RouteTable = 'rds' | 'vhds';

interface Figures {
  clients: number;
  routeTable: RouteTable;
  snapshotMs: number[];
  ackMs: number[];
  fullMs: number;
  firstMs: number;
  routeBytes: number;
  rss: number;
  /** Once serve has gone quiet after the edits (its idle collections done), clients still connected. */
  steadyRss: number;
  heapBefore: number;
  heapAfter: number;
  leakEdits: number;
}

/** Saves `file` as editors do: a temporary file renamed over it. */
function save(file: string, text: string): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.swp`);
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

/** RSS once the process has gone quiet: `collector` has run its collections after the last activity, and a second more has let their memory go back to the system. */
async function quietRss(collector: IdleCollector): Promise<number> {
  const deadline = Date.now() + 30_000;
  while (collector.pending && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return process.memoryUsage().rss;
}

/** The next compile outcome that made a new snapshot (or failed). */
function nextSnapshot(control: ControlPlane): Promise<CompileOutcome> {
  return new Promise((resolve) => {
    const on = (o: CompileOutcome) => {
      if (o.ok && !o.changed) return;
      control.off('compiled', on);
      resolve(o);
    };
    control.on('compiled', on);
  });
}

async function measurePhase(clients: number, leakEdits: number, routeTable: RouteTable): Promise<Figures> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-bench-scale-'));
  const fleet = await ClientFleet.start();
  const options = { ...DEFAULT_OPTIONS, vhds: routeTable === 'vhds' };
  const control = new ControlPlane({ paths: [dir], compileOptions: options, logger: pino({ level: 'silent' }) });
  const server = new XdsServer(control.cache);
  // As serve runs: full collections once it goes quiet.
  const collector = collectWhenQuiet(control, server);
  try {
    generate(dir, VIRTUAL_SERVICES, 10);
    const first = await control.start();
    if (!first.ok) throw new Error(`bench input did not compile: ${first.diagnostics[0]?.message}`);
    const port = await server.listen('127.0.0.1', 0);
    const snapshot = control.snapshot!;
    const route = snapshot.type(TYPE_URL.route)!;
    const routeName = [...route.resources.keys()][0]!;
    const edsNames = [...snapshot.type(TYPE_URL.endpoint)!.resources.keys()];
    // The type an edit of a route changes: the route configuration, or (VHDS) one virtual host.
    const editedType = routeTable === 'vhds' ? TYPE_URL.virtualHost : TYPE_URL.route;
    await fleet.connect({
      port,
      clients,
      // Envoy takes VHDS over delta xDS only.
      protocol: routeTable === 'vhds' ? 'delta' : 'sotw',
      subscriptions: [
        { type_url: TYPE_URL.cluster, resource_names: [] },
        ...(edsNames.length ? [{ type_url: TYPE_URL.endpoint, resource_names: edsNames }] : []),
        { type_url: TYPE_URL.listener, resource_names: [] },
        { type_url: TYPE_URL.route, resource_names: [routeName] },
        // As Envoy subscribes: the route configuration's name, a namespace of virtual hosts.
        ...(routeTable === 'vhds' ? [{ type_url: TYPE_URL.virtualHost, resource_names: [routeName] }] : []),
      ],
    });

    let edit = 0;
    /** One single-file edit: a route prefix of one VirtualService, a different file each time. Read from the disk: this process is the server, whose memory is measured, so it keeps no copy of the files. */
    const editOnce = () => {
      const file = path.join(dir, `resources-${edit % FILES}.yaml`);
      save(file, readFileSync(file, 'utf8').replace(/prefix: \/r0(-edit\d+)?\}/, `prefix: /r0-edit${edit}}`));
      edit++;
    };

    const snapshotMs: number[] = [];
    const ackMs: number[] = [];
    for (let i = 0; i < EDITS; i++) {
      let expected = '';
      let acked = 0;
      let t0 = 0;
      const allAcked = new Promise<number>((resolve) => {
        const onAck = (e: { typeUrl: string; version: string }) => {
          if (e.typeUrl !== editedType || e.version !== expected || ++acked < clients) return;
          server.off('ack', onAck);
          resolve(performance.now() - t0);
        };
        server.on('ack', onAck);
      });
      // Called when the snapshot is set; the streams' pushes are scheduled for later turns of the event loop (PushQueue.schedule, control-plane/server/flow.ts).
      let snapshotAt = 0;
      const unwatch = control.cache.watch(() => {
        snapshotAt = performance.now();
        expected = control.snapshot!.type(editedType)!.version;
      });
      const compiled = nextSnapshot(control);
      t0 = performance.now();
      editOnce();
      const outcome = await compiled;
      if (!outcome.ok) throw new Error(`edit did not compile: ${outcome.diagnostics[0]?.message}`);
      snapshotMs.push(snapshotAt - t0);
      ackMs.push(await allAcked);
      unwatch();
    }
    const rss = process.memoryUsage().rss;
    const steadyRss = await quietRss(collector);

    // The peer: the same input compiled and encoded from nothing, as every edit did before.
    const f0 = performance.now();
    const full = await new Compiler(options).compile([dir]);
    new SnapshotEncoder().build(full.xds!);
    const fullMs = performance.now() - f0;

    // Memory of the control plane over many edits; compiles driven directly (no watcher wait).
    control.close();
    await fleet.disconnect();
    const heapBefore = (await settledMemory()).retained;
    for (let i = 0; i < leakEdits; i++) {
      editOnce();
      await control.recompile();
    }
    const heapAfter = (await settledMemory()).retained;
    return {
      clients,
      routeTable,
      snapshotMs,
      ackMs,
      fullMs,
      firstMs: first.durationMs,
      routeBytes: sentPerEdit(control, routeTable, routeName),
      rss,
      steadyRss,
      heapBefore,
      heapAfter,
      leakEdits,
    };
  } finally {
    fleet.stop();
    collector.close();
    control.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What one edit of a route sends each client: the whole route configuration (RDS), or one virtual host (VHDS). */
function sentPerEdit(control: ControlPlane, routeTable: RouteTable, routeName: string): number {
  const snapshot = control.snapshot!;
  if (routeTable === 'rds') return snapshot.type(TYPE_URL.route)!.resources.get(routeName)!.value.length;
  return snapshot.type(TYPE_URL.virtualHost)!.resources.values().next().value!.value.length;
}

const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
const met = (ok: boolean) => (ok ? 'met' : 'NOT met');

export async function run(args: string[]): Promise<void> {
  const counts = (args.find((a) => a.startsWith('--clients='))?.slice(10) ?? '100,500').split(',').map(Number);
  const leakEdits = Number(args.find((a) => a.startsWith('--leak-edits='))?.slice(13) ?? 1000);
  const routeTables = (args.find((a) => a.startsWith('--route-table='))?.slice(14) ?? 'vhds,rds').split(
    ',',
  ) as RouteTable[];
  const self = fileURLToPath(import.meta.url);
  console.log(
    `${VIRTUAL_SERVICES} virtual services in ${FILES} files (JWT+RBAC on half, ext_authz on a tenth); ${EDITS} single-file edits; watcher debounce ${DEBOUNCE_MS} ms`,
  );
  console.log(
    'route table | clients | save->snapshot p50 | max | save->last ACK p50 | max | full recompile (peer) | first compile | sent per edit per client | RSS after edits | steady RSS | heap before -> after N edits',
  );
  let first = true;
  for (const routeTable of routeTables) {
    for (const n of counts) {
      // The memory check runs once, in the first phase.
      const f = JSON.parse(
        execFileSync(process.execPath, [self, PHASE_FLAG, String(n), String(first ? leakEdits : 0), routeTable], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'inherit'],
          maxBuffer: 1 << 20,
          env: serveEnvironment(),
        }),
      ) as Figures;
      first = false;
      const heap = f.leakEdits > 0 ? `${mib(f.heapBefore)} -> ${mib(f.heapAfter)} MiB over ${f.leakEdits}` : '-';
      const sent = f.routeBytes < 1 << 20 ? `${(f.routeBytes / 1024).toFixed(1)} KiB` : `${mib(f.routeBytes)} MiB`;
      console.log(
        `${routeTable.padStart(11)} | ${String(n).padStart(7)} | ${median(f.snapshotMs).toFixed(0).padStart(12)} ms | ${Math.max(...f.snapshotMs).toFixed(0)} ms | ${median(f.ackMs).toFixed(0).padStart(12)} ms | ${Math.max(...f.ackMs).toFixed(0)} ms | ${f.fullMs.toFixed(0).padStart(8)} ms | ${f.firstMs.toFixed(0)} ms | ${sent} | ${mib(f.rss)} MiB | ${mib(f.steadyRss)} MiB | ${heap}`,
      );
      console.log(
        `targets (${routeTable}, ${n} clients): save->snapshot p50 < 150 ms: ${met(median(f.snapshotMs) < 150)}; ${n >= 500 ? `save->last ACK p50 < 1 s: ${met(median(f.ackMs) < 1000)}; ` : ''}steady RSS < 400 MiB: ${met(f.steadyRss < 400 * 1048576)}${
          f.leakEdits > 0
            ? `; heap growth over ${f.leakEdits} edits < 5%: ${met(f.heapAfter < f.heapBefore * 1.05)}`
            : ''
        }`,
      );
    }
  }
}

if (process.argv[2] === PHASE_FLAG)
  process.stdout.write(
    JSON.stringify(await measurePhase(Number(process.argv[3]), Number(process.argv[4]), process.argv[5] as RouteTable)),
  );
