/**
 * `npm run bench -- compile`: compiles generated inputs of 1,000 and 10,000
 * VirtualServices (5 routes each, half with JWT + RBAC), and a mixed input of
 * 10,000 with Gloo's routing (exact, regex and header matchers, weighted
 * destinations, route options, a RouteTable delegated from every tenth),
 * each in a fresh child process so peak RSS is its own. Peer: serialising the same output
 * alone (the floor every compiler pays). Targets: 10,000 in < 10 s, at most
 * 1.5x the serialisation floor, peak RSS < 512 MiB, and 10x input costing at
 * most 11x time.
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type EmittedFiles, renderOutput } from '../compiler/emit/write.js';
import { compileFiles } from '../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../compiler/translate/output.js';

const SIZES = [1000, 10000];
const PER_FILE = 500;

/** `extauthEvery`: every that-many-th VirtualService (of those without JWT) also uses ext_authz, with one AuthConfig per namespace. */
export function generate(dir: string, count: number, extauthEvery = 0): void {
  const pem = generateKeyPairSync('rsa', { modulusLength: 2048 })
    .publicKey.export({ type: 'spki', format: 'pem' })
    .toString();
  const indented = pem
    .trim()
    .split('\n')
    .map((l) => `                  ${l}`)
    .join('\n');
  for (let file = 0; file * PER_FILE < count; file++) {
    const docs: string[] = [];
    for (let i = file * PER_FILE; i < Math.min(count, (file + 1) * PER_FILE); i++) {
      const ns = `team-${i % 50}`;
      docs.push(
        `apiVersion: v1\nkind: Service\nmetadata: {name: svc-${i}, namespace: ${ns}}\nspec:\n  ports: [{port: 8080}]`,
      );
      const routes = Array.from(
        { length: 5 },
        (_, r) =>
          `      - matchers: [{prefix: /r${r}}]\n        routeAction: {single: {kube: {ref: {name: svc-${i}}, port: 8080}}}`,
      ).join('\n');
      const auth =
        i % 2 === 0
          ? `\n    options:\n      jwt:\n        providers:\n          main:\n            issuer: https://issuer.example.com\n            jwks:\n              local:\n                key: |\n${indented}\n      rbac:\n        policies:\n          readers:\n            permissions: {methods: [GET, HEAD], pathPrefix: /r}\n            principals:\n              - jwtPrincipal: {claims: {role: reader}}`
          : extauthEvery > 0 && i % extauthEvery === 1
            ? `\n    options:\n      extauth: {configRef: {name: ldap}}`
            : '';
      docs.push(
        `apiVersion: gateway.gateway.example/v1\nkind: VirtualService\nmetadata: {name: vs-${i}, namespace: ${ns}}\nspec:\n  virtualHost:\n    domains: [vs-${i}.example.com]\n    routes:\n${routes}${auth}`,
      );
    }
    writeFileSync(path.join(dir, `resources-${file}.yaml`), `${docs.join('\n---\n')}\n`);
  }
  if (extauthEvery > 0) {
    const ldap = (ns: string) =>
      `apiVersion: enterprise.gateway.example/v1\nkind: AuthConfig\nmetadata: {name: ldap, namespace: ${ns}}\nspec:\n  configs:\n    - ldap:\n        address: ldap://openldap:389\n        userDnTemplate: uid=%s,ou=people,dc=example,dc=org\n        allowedGroups: ['cn=developers,ou=groups,dc=example,dc=org']`;
    writeFileSync(
      path.join(dir, 'authconfigs.yaml'),
      `${Array.from({ length: 50 }, (_, n) => ldap(`team-${n}`)).join('\n---\n')}\n`,
    );
  }
}

/**
 * The mixed input: 5 routes per VirtualService, one each of exact + header,
 * regex, weighted multi (two Services), prefix with options (prefixRewrite,
 * timeout, retries, headerManipulation), and a catch-all prefix; every tenth
 * delegates /team to a RouteTable of 3 routes instead of its catch-all.
 */
export function generateMixed(dir: string, count: number): void {
  for (let file = 0; file * PER_FILE < count; file++) {
    const docs: string[] = [];
    for (let i = file * PER_FILE; i < Math.min(count, (file + 1) * PER_FILE); i++) {
      const ns = `team-${i % 50}`;
      for (const suffix of ['a', 'b'])
        docs.push(
          `apiVersion: v1\nkind: Service\nmetadata: {name: svc-${i}-${suffix}, namespace: ${ns}}\nspec:\n  ports: [{port: 8080}]`,
        );
      const dest = (suffix: string) => `{kube: {ref: {name: svc-${i}-${suffix}}, port: 8080}}`;
      const delegated = i % 10 === 0;
      const routes = [
        `      - matchers: [{exact: /health, headers: [{name: x-probe, value: "1"}]}]\n        routeAction: {single: ${dest('a')}}`,
        `      - matchers: [{regex: '/items/[0-9]+'}]\n        routeAction: {single: ${dest('b')}}`,
        `      - matchers: [{prefix: /canary}]\n        routeAction:\n          multi:\n            destinations:\n              - {weight: 90, destination: ${dest('a')}}\n              - {weight: 10, destination: ${dest('b')}}`,
        `      - matchers: [{prefix: /api}]\n        routeAction: {single: ${dest('a')}}\n        options:\n          prefixRewrite: /v2\n          timeout: 3s\n          retries: {retryOn: 5xx, numRetries: 2, perTryTimeout: 1s}\n          headerManipulation: {requestHeadersToAdd: [{header: {key: x-tenant, value: ${ns}}}], responseHeadersToRemove: [server]}`,
        delegated
          ? `      - matchers: [{prefix: /team}]\n        delegateAction: {ref: {name: rt-${i}}}`
          : `      - matchers: [{prefix: /}]\n        routeAction: {single: ${dest('b')}}`,
      ].join('\n');
      docs.push(
        `apiVersion: gateway.gateway.example/v1\nkind: VirtualService\nmetadata: {name: vs-${i}, namespace: ${ns}}\nspec:\n  virtualHost:\n    domains: [vs-${i}.example.com]\n    routes:\n${routes}`,
      );
      if (delegated) {
        const children = ['/team/a', '/team/b', '/team']
          .map(
            (prefix, k) =>
              `    - matchers: [{prefix: ${prefix}}]\n      routeAction: {single: ${dest(k % 2 === 0 ? 'a' : 'b')}}`,
          )
          .join('\n');
        docs.push(
          `apiVersion: gateway.gateway.example/v1\nkind: RouteTable\nmetadata: {name: rt-${i}, namespace: ${ns}}\nspec:\n  routes:\n${children}`,
        );
      }
    }
    writeFileSync(path.join(dir, `resources-${file}.yaml`), `${docs.join('\n---\n')}\n`);
  }
}

type InputKind = 'plain' | 'mixed';

interface Figures {
  kind: InputKind;
  count: number;
  compileMs: number;
  serializeMs: number;
  peakRssMiB: number;
  bytes: number;
}

/** Makes every piece of the files, as writing them would, and counts their characters. */
function rendered(files: EmittedFiles): number {
  let length = 0;
  for (const text of Object.values(files)) for (const piece of text) length += piece.length;
  return length;
}

/** Runs in the child: one size, one process. */
async function measure(kind: InputKind, count: number): Promise<Figures> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sluice-bench-'));
  try {
    if (kind === 'mixed') generateMixed(dir, count);
    else generate(dir, count);
    const start = performance.now();
    const result = await compileFiles([dir], DEFAULT_OPTIONS);
    if (!result.xds) throw new Error(`bench input did not compile: ${result.diagnostics[0]?.message}`);
    const bytes = rendered(renderOutput(result.xds, DEFAULT_OPTIONS, 'yaml'));
    const compileMs = performance.now() - start;
    // The compile's own peak, before the peer runs in the same process.
    const peakRssMiB = process.resourceUsage().maxRSS / 1024;
    const s0 = performance.now();
    rendered(renderOutput(result.xds, DEFAULT_OPTIONS, 'yaml'));
    const serializeMs = performance.now() - s0;
    return { kind, count, compileMs, serializeMs, peakRssMiB, bytes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  const worker = (kind: InputKind, n: number) =>
    JSON.parse(
      execFileSync(process.execPath, [self, '--worker', kind, String(n)], { encoding: 'utf8', maxBuffer: 1 << 20 }),
    ) as Figures;
  const figures: Figures[] = SIZES.map((n) => worker('plain', n));
  const mixed = worker('mixed', SIZES.at(-1)!);
  console.log(
    'input | virtual services | compile (load..verify+render) | serialise alone (floor) | ratio | peak RSS | output',
  );
  for (const f of [...figures, mixed]) {
    console.log(
      `${f.kind.padEnd(5)} | ${String(f.count).padStart(16)} | ${(f.compileMs / 1000).toFixed(2).padStart(8)} s | ${(f.serializeMs / 1000).toFixed(2).padStart(8)} s | ${(f.compileMs / f.serializeMs).toFixed(1).padStart(5)}x | ${f.peakRssMiB.toFixed(0).padStart(5)} MiB | ${(f.bytes / 1048576).toFixed(1)} MiB`,
    );
  }
  const [small, large] = figures;
  const growth = large.compileMs / small.compileMs;
  console.log(
    `growth for 10x input: ${growth.toFixed(1)}x time (target <= 11x); 10,000 in ${(large.compileMs / 1000).toFixed(2)} s (target < 10 s)`,
  );
  for (const f of [large, mixed]) {
    const r = f.compileMs / f.serializeMs;
    console.log(
      `${f.kind} 10,000: ${r.toFixed(2)}x the serialisation floor (target <= 1.5x: ${r <= 1.5 ? 'met' : 'NOT met'}), peak RSS ${f.peakRssMiB.toFixed(0)} MiB (target < 512 MiB: ${f.peakRssMiB < 512 ? 'met' : 'NOT met'}), ${(f.compileMs / 1000).toFixed(2)} s (target < 10 s)`,
    );
  }
}

if (process.argv[2] === '--worker') {
  process.stdout.write(JSON.stringify(await measure(process.argv[3] as InputKind, Number(process.argv[4]))));
}
