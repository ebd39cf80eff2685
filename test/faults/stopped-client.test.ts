/**
 * A delta ADS client stopped with SIGSTOP (it neither reads nor ACKs) while
 * the snapshot changes many times, next to a live client: the server writes
 * the stopped one at most one response per type (what it had in flight when
 * it stopped, or one for the first change after), its unflushed bytes stay
 * within one response, and the live client gets every edit. Resumed, the
 * stopped client gets the latest state, merged. Counts, never time.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { DeltaClient, type DeltaResponse } from '../../harness/xds-client.js';
import { TYPE_URL as T, snapshotOf, startServer, type Shape } from '../xds/fixtures.js';
import { until } from '../extauth/helpers.js';

const EDITS = 40;
/** Enough virtual hosts that one RDS response is larger than an HTTP/2 window (64 KiB): a stopped reader holds writes back. */
const VHOSTS = 1500;

function edit(i: number): Shape {
  const vhosts: Shape['vhosts'] = {};
  for (let v = 0; v < VHOSTS; v++) vhosts[`host-${v}`] = [`/v${i}`, 'web'];
  return { vhosts, clusters: { web: `10.0.${Math.floor(i / 250)}.${1 + (i % 250)}:80` } };
}

test('a stopped delta client costs one response per type, whatever the number of edits; the live one gets them all', async () => {
  const { server, cache, port } = await startServer();
  const live = new DeltaClient(port, 'live');
  const child = spawn(process.execPath, ['harness/delta-client.mjs', String(port), 'stopped', 'web'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    cache.setSnapshot(snapshotOf(edit(0)));
    const seen: Array<{ type: string; names: string[] }> = [];
    createInterface({ input: child.stdout! }).on('line', (line) => seen.push(JSON.parse(line)));
    await until(() => new Set(seen.map((r) => r.type)).size === 4);
    const stoppedId = server.status().find((s) => s.node?.id === 'stopped')!.id;
    for (const [type, names] of [
      [T.cluster, []],
      [T.endpoint, ['web']],
      [T.listener, []],
      [T.route, ['http-8080']],
    ] as const) {
      live.send({ type_url: type, resource_names_subscribe: [...names] });
      live.ack(await live.expect(type));
    }
    const liveId = server.status().find((s) => s.node?.id === 'live')!.id;
    // Its ACKs of the first responses are in: nothing is in flight.
    await until(() =>
      Object.values(server.status().find((s) => s.id === stoppedId)!.types).every((t) => t.acked === t.sent),
    );

    child.kill('SIGSTOP');
    const pushes = new Map<string, number>();
    server.on('push', (e: { stream: number; typeUrl: string }) =>
      pushes.set(`${e.stream} ${e.typeUrl}`, (pushes.get(`${e.stream} ${e.typeUrl}`) ?? 0) + 1),
    );
    let largest = 0;
    for (let i = 1; i <= EDITS; i++) {
      cache.setSnapshot(snapshotOf(edit(i)));
      largest = Math.max(largest, ...[...cache.current!.type(T.route)!.resources.values()].map((r) => r.value.length));
      let r: DeltaResponse;
      do {
        r = await live.next();
        live.ack(r);
      } while (r.type_url !== T.route);
      expect(r.resources[0].json.virtual_hosts[0].routes[0].match.prefix).toBe(`/v${i}`);
      const stopped = server.status().find((s) => s.id === stoppedId)!;
      expect(stopped.unflushedBytes).toBeLessThanOrEqual(largest + 1024);
    }
    expect(pushes.get(`${liveId} ${T.route}`)).toBe(EDITS);
    expect(pushes.get(`${stoppedId} ${T.route}`)).toBe(1);
    expect(pushes.get(`${stoppedId} ${T.endpoint}`)).toBe(1);
    expect(pushes.get(`${stoppedId} ${T.cluster}`)).toBeUndefined();

    // Resumed: it reads the held responses, ACKs them, and gets the last edit's state in one more response per type.
    const before = seen.length;
    child.kill('SIGCONT');
    const final = cache.current!.type(T.route)!.version;
    await until(() =>
      seen.slice(before).some((r) => r.type === T.route && (r as { version?: string }).version === final),
    );
    expect(seen.slice(before).filter((r) => r.type === T.route)).toHaveLength(2);
    expect(pushes.get(`${stoppedId} ${T.route}`)).toBe(2);
  } finally {
    child.kill('SIGKILL');
    live.close();
    await server.close();
  }
});
