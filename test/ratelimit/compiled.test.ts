/**
 * The compiler and sluice-ratelimit together: a Gloo RateLimitConfig with
 * weighted rules is compiled (`sluice compile -o` output), the sidecar runs
 * on the ratelimit.json it wrote, and each request's descriptors are built
 * from the compiled rate_limits actions as Envoy builds them (generic_key and
 * request header actions, and a limit override read from dynamic metadata).
 * Only the heavier rule counts, as Gloo's weights say, so the request is
 * limited by it and not by the lighter one; an override found in the
 * request's metadata limits a descriptor no rule limits.
 */
import path from 'node:path';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { renderOutput, writeFiles } from '../../compiler/emit/write.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS, type Json } from '../../compiler/translate/output.js';
import { startRedis, type RedisServer } from '../../harness/redis.js';
import type { LimitOverride } from '../../harness/ratelimit-client.js';
import { tempDir } from '../../harness/temp-dir.js';
import { startSidecar, type Sidecar } from './helpers.js';

const RESOURCES = `
apiVersion: ratelimit.solo.io/v1alpha1
kind: RateLimitConfig
metadata: {name: per-plan, namespace: default}
spec:
  raw:
    descriptors:
      - key: plan
        value: free
        weight: 1
        rateLimit: {requestsPerUnit: 2, unit: YEAR}
      - key: account
        rateLimit: {requestsPerUnit: 1, unit: YEAR}
    rateLimits:
      - actions: [{requestHeaders: {headerName: x-plan, descriptorKey: plan}}]
      - actions: [{requestHeaders: {headerName: x-account, descriptorKey: account}}]
      - actions: [{requestHeaders: {headerName: x-tenant, descriptorKey: tenant}}]
        limit: {dynamicMetadata: {metadataKey: {key: envoy.filters.http.ext_authz, path: [{key: tenant_limit}]}}}
---
apiVersion: gateway.solo.io/v1
kind: VirtualService
metadata: {name: api, namespace: default}
spec:
  virtualHost:
    domains: [api.example.com]
    options:
      rateLimitConfigs: {refs: [{name: per-plan}]}
    routes:
      - matchers: [{prefix: /}]
        routeAction: {single: {upstream: {name: echo, namespace: default}}}
---
apiVersion: gloo.solo.io/v1
kind: Upstream
metadata: {name: echo, namespace: default}
spec:
  static: {hosts: [{addr: 127.0.0.1, port: 8080}]}
`;

interface EnvoyRateLimit {
  actions: {
    generic_key?: { descriptor_key?: string; descriptor_value: string };
    request_headers?: { header_name: string; descriptor_key: string };
  }[];
  limit?: { dynamic_metadata: { metadata_key: { key: string; path: { key: string }[] } } };
}

type Metadata = Record<string, Record<string, unknown>>;

/** Every rate_limits entry in the compiled output (virtual hosts and routes). */
function rateLimitsIn(node: unknown, found: EnvoyRateLimit[] = []): EnvoyRateLimit[] {
  if (Array.isArray(node)) for (const n of node) rateLimitsIn(n, found);
  else if (node && typeof node === 'object')
    for (const [k, v] of Object.entries(node)) {
      if (k === 'rate_limits' && Array.isArray(v)) found.push(...(v as EnvoyRateLimit[]));
      else rateLimitsIn(v, found);
    }
  return found;
}

/**
 * The descriptors Envoy sends for `headers`: one per entry whose actions all produce an entry, with the
 * limit its override finds in the request's dynamic metadata (a struct of requests_per_unit and unit).
 */
function descriptorsFor(
  limits: EnvoyRateLimit[],
  headers: Record<string, string>,
  metadata: Metadata = {},
): { descriptors: [string, string][][]; overrides: (LimitOverride | undefined)[] } {
  const out = { descriptors: [] as [string, string][][], overrides: [] as (LimitOverride | undefined)[] };
  for (const l of limits) {
    const entries: [string, string][] = [];
    const complete = l.actions.every((a) => {
      if (a.generic_key) entries.push([a.generic_key.descriptor_key || 'generic_key', a.generic_key.descriptor_value]);
      else if (a.request_headers) {
        const value = headers[a.request_headers.header_name];
        if (value === undefined) return false;
        entries.push([a.request_headers.descriptor_key, value]);
      } else throw new Error(`an action this test does not build: ${JSON.stringify(a)}`);
      return true;
    });
    if (!complete) continue;
    const key = l.limit?.dynamic_metadata.metadata_key;
    const found = key?.path.reduce<unknown>(
      (v, p) => (v as Record<string, unknown> | undefined)?.[p.key],
      metadata[key.key],
    );
    out.descriptors.push(entries);
    out.overrides.push(found as LimitOverride | undefined);
  }
  return out;
}

let redis: RedisServer;
let sidecar: Sidecar;
let limits: EnvoyRateLimit[];
let domain: string;

beforeAll(async () => {
  const dir = tempDir('ratelimit-compiled');
  mkdirSync(path.join(dir, 'in'));
  writeFileSync(path.join(dir, 'in', 'resources.yaml'), RESOURCES);
  const result = await compileFiles([path.join(dir, 'in')], DEFAULT_OPTIONS);
  expect(result.diagnostics).toEqual([]);
  await writeFiles(path.join(dir, 'out'), renderOutput(result.xds!, DEFAULT_OPTIONS, 'json'));
  limits = rateLimitsIn(JSON.parse(readFileSync(path.join(dir, 'out', 'envoy.json'), 'utf8')) as Json);
  expect(limits).toHaveLength(3);
  const set = JSON.parse(readFileSync(path.join(dir, 'out', 'ratelimit.json'), 'utf8')) as {
    domains: { domain: string }[];
  };
  expect(set.domains).toHaveLength(1);
  domain = set.domains[0]!.domain;
  redis = await startRedis();
  sidecar = await startSidecar(redis.address, { config: path.join(dir, 'out', 'ratelimit.json') });
});

afterAll(async () => {
  await sidecar?.close();
  await redis?.close();
});

test('the weighted rule counts and the lighter one does not: two requests pass, the third is over the limit', async () => {
  const { descriptors } = descriptorsFor(limits, { 'x-plan': 'free', 'x-account': 'a1' });
  expect(descriptors).toHaveLength(2);
  const codes = [];
  for (let i = 0; i < 3; i++) codes.push((await sidecar.call(domain, descriptors)).overall_code);
  expect(codes).toEqual(['OK', 'OK', 'OVER_LIMIT']);
});

test('without the weighted entry the lighter rule counts: one request per account', async () => {
  const { descriptors } = descriptorsFor(limits, { 'x-account': 'a2' });
  expect(descriptors).toHaveLength(1);
  const codes = [];
  for (let i = 0; i < 2; i++) codes.push((await sidecar.call(domain, descriptors)).overall_code);
  expect(codes).toEqual(['OK', 'OVER_LIMIT']);
});

test("a limit override from the request's dynamic metadata limits a descriptor no rule limits; without it, nothing does", async () => {
  const metadata = { 'envoy.filters.http.ext_authz': { tenant_limit: { requests_per_unit: 2, unit: 'YEAR' } } };
  const call = descriptorsFor(limits, { 'x-tenant': 'acme' }, metadata);
  expect(call.overrides).toEqual([{ requests_per_unit: 2, unit: 'YEAR' }]);
  const codes = [];
  for (let i = 0; i < 3; i++)
    codes.push((await sidecar.call(domain, call.descriptors, { limits: call.overrides })).overall_code);
  expect(codes).toEqual(['OK', 'OK', 'OVER_LIMIT']);
  const plain = descriptorsFor(limits, { 'x-tenant': 'other' });
  expect(plain.overrides).toEqual([undefined]);
  for (let i = 0; i < 3; i++) expect((await sidecar.call(domain, plain.descriptors)).overall_code).toBe('OK');
});
