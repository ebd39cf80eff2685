/**
 * The serve log stays small over many edits: one info line per snapshot,
 * the same errors not logged again in full, at most REPORT_LIMIT diagnostic
 * lines per compile. Real compiles of files in a temporary folder.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPORT_LIMIT } from '../../compiler/diagnostics.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';
import { ControlPlane } from '../../control-plane/control.js';
import { memoryLogger } from '../extauth/helpers.js';
import { tempDir } from '../../harness/temp-dir.js';

const SERVICE = `apiVersion: v1
kind: Service
metadata: {name: petstore, namespace: default}
spec:
  ports: [{port: 8080}]
`;

/** A VirtualService with one route per prefix, each to `service`. */
function virtualService(prefixes: string[], service = (_i: number) => 'petstore'): string {
  const routes = prefixes.map(
    (p, i) =>
      `      - matchers: [{prefix: ${p}}]\n        routeAction:\n          single:\n            kube: {ref: {name: ${service(i)}, namespace: default}, port: 8080}\n`,
  );
  return `apiVersion: gateway.gateway.example/v1
kind: VirtualService
metadata: {name: petstore, namespace: default}
spec:
  virtualHost:
    domains: [petstore.example.com]
    routes:
${routes.join('')}`;
}

test('one info line per snapshot; identical errors summarised; at most REPORT_LIMIT diagnostic lines', async () => {
  const dir = tempDir('log');
  writeFileSync(path.join(dir, 'service.yaml'), SERVICE);
  const vs = path.join(dir, 'vs.yaml');
  writeFileSync(vs, virtualService(['/v0']));
  const { logger, text } = memoryLogger();
  logger.level = 'info';
  const control = new ControlPlane({ paths: [dir], compileOptions: DEFAULT_OPTIONS, logger });
  const lines = () =>
    text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: number; msg: string; changed?: Record<string, string> });
  try {
    await control.recompile();
    for (let i = 1; i <= 20; i++) {
      writeFileSync(vs, virtualService([`/v${i}`]));
      await control.recompile();
    }
    let log = lines();
    expect(log.filter((l) => l.msg === 'new snapshot')).toHaveLength(21);
    expect(log).toHaveLength(21);
    expect(log.at(-1)!.changed).toEqual({ RouteConfiguration: '+0 ~1 -0' });

    // The same broken edit five times: its error in full once, then one line each.
    writeFileSync(
      vs,
      virtualService(['/broken'], () => 'nowhere'),
    );
    for (let i = 0; i < 5; i++) await control.recompile();
    log = lines().slice(21);
    const errorLines = log.filter((l) => l.msg.includes('nowhere'));
    expect(errorLines).toHaveLength(1);
    expect(log.filter((l) => l.msg.startsWith('the same 1 error as the previous compile'))).toHaveLength(4);
    expect(log.filter((l) => l.msg === 'compile failed; keeping the last good snapshot')).toHaveLength(5);

    // Hundreds of errors: REPORT_LIMIT lines and a count of the rest.
    const before = lines().length;
    writeFileSync(
      vs,
      virtualService(
        Array.from({ length: 300 }, (_, i) => `/r${i}`),
        (i) => `nowhere-${i}`,
      ),
    );
    await control.recompile();
    log = lines().slice(before);
    expect(control.errors.length).toBeGreaterThanOrEqual(300);
    expect(log.filter((l) => l.msg.includes('nowhere-'))).toHaveLength(REPORT_LIMIT);
    expect(log.some((l) => /^… and \d+ more not shown/.test(l.msg))).toBe(true);
    expect(log.length).toBeLessThanOrEqual(REPORT_LIMIT + 2);
  } finally {
    control.close();
  }
});

test('the first good compile after failed ones says at info that the configuration compiles again, and what it pushed', async () => {
  const dir = tempDir('log');
  writeFileSync(path.join(dir, 'service.yaml'), SERVICE);
  const vs = path.join(dir, 'vs.yaml');
  const good = virtualService(['/v0']);
  writeFileSync(vs, good);
  const { logger, text } = memoryLogger();
  logger.level = 'info';
  const control = new ControlPlane({ paths: [dir], compileOptions: DEFAULT_OPTIONS, logger });
  type Line = {
    level: number;
    msg: string;
    version?: string;
    pushed?: boolean;
    failedCompiles?: number;
    generation?: number;
  };
  const lines = () =>
    text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);
  const again = (log: Line[]) => log.filter((l) => l.msg.startsWith('the configuration compiles again'));
  try {
    await control.recompile();
    const served = control.version;
    // Broken twice, then the file restored as it was: nothing new to push, and the log says so.
    writeFileSync(
      vs,
      virtualService(['/broken'], () => 'nowhere'),
    );
    await control.recompile();
    await control.recompile();
    let start = lines().length;
    writeFileSync(vs, good);
    await control.recompile();
    let log = lines().slice(start);
    expect(again(log)).toEqual([
      expect.objectContaining({
        level: 30,
        version: served,
        pushed: false,
        failedCompiles: 2,
        msg: `the configuration compiles again after 2 failed compiles; nothing to push: it compiles to the snapshot served all along (${served})`,
      }),
    ]);
    expect(log).toHaveLength(1);

    // Broken once, then fixed with a change: the new snapshot is what was pushed.
    writeFileSync(
      vs,
      virtualService(['/broken'], () => 'nowhere'),
    );
    await control.recompile();
    start = lines().length;
    writeFileSync(vs, virtualService(['/v1']));
    await control.recompile();
    log = lines().slice(start);
    expect(again(log)).toEqual([
      expect.objectContaining({
        level: 30,
        version: control.version,
        pushed: true,
        failedCompiles: 1,
        generation: 2,
        msg: `the configuration compiles again after 1 failed compile; pushed snapshot ${control.version} (generation 2)`,
      }),
    ]);
    expect(log.map((l) => l.msg)).toEqual([again(log)[0].msg, 'new snapshot']);

    // A good compile after a good one: no such line.
    start = lines().length;
    writeFileSync(vs, virtualService(['/v2']));
    await control.recompile();
    expect(again(lines().slice(start))).toEqual([]);
  } finally {
    control.close();
  }
});
