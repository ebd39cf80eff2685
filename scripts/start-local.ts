/**
 * The examples on loopback. examples/ names kube Services
 * (`<service>.<namespace>.svc.cluster.local`) and an LDAP server by its
 * cluster DNS name; neither resolves outside a cluster. The local stack
 * (`npm start`, test/e2e/examples.test.ts) serves examples/ as written plus
 * an overlay in out/local/:
 *
 * - `upstreams.yaml`: for each Service port, an Upstream of the discovered
 *   name (`sluice-system/<namespace>-<service>-<port>`) with
 *   `spec.static.hosts` on 127.0.0.1 and the port the local program listens
 *   on. An explicit Upstream of that name overrides discovery, so Envoy's
 *   clusters and the hosts sluice-graphql dials both land on loopback.
 * - a copy of each file holding an LDAP AuthConfig, its `address` replaced by
 *   the local directory's (sluice-extauth dials the address itself, and an
 *   AuthConfig has no upstream reference to override); `serve` gets the copy
 *   instead of the original, and `syncCopies` keeps the copies current.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { dump } from 'js-yaml';
import { listInputFiles } from '../compiler/load/files.js';
import { loadPaths } from '../compiler/load/load.js';
import { discoveredUpstreamName } from '../compiler/resolve/upstreams.js';
import { DEFAULT_OPTIONS } from '../compiler/translate/output.js';

/** The Envoy image docker-compose.yml runs and npm start suggests (test/deploy.test.ts keeps them equal). */
export const ENVOY_IMAGE = 'envoyproxy/envoy:v1.32.13';

/** A kube Service port of the examples: `<namespace>/<service>/<port>`. */
export type ServicePortKey = string;

export const servicePortKey = (namespace: string, service: string, port: number): ServicePortKey =>
  `${namespace}/${service}/${port}`;

export interface LocalTargets {
  /** The loopback port serving each Service port. */
  services: Map<ServicePortKey, number>;
  /** The local directory, e.g. ldap://127.0.0.1:3890. */
  ldapAddress: string;
}

export interface LocalResources {
  /** What to give `sluice serve -f`, in order. */
  paths: string[];
  /** The Upstream overlay. */
  overlay: string;
  /** Original -> copy, for the files with an LDAP address rewritten. */
  copies: Map<string, string>;
  /** Service ports of the examples with no local target (their routes fail to connect: 503). */
  unserved: ServicePortKey[];
}

interface ServiceDoc {
  metadata: { name: string; namespace?: string };
  spec?: { ports?: { port: number }[] };
}

interface AuthConfigDoc {
  spec?: { configs?: { ldap?: { address?: string } }[] };
}

function ldapAddresses(doc: AuthConfigDoc): string[] {
  return (doc.spec?.configs ?? []).flatMap((c) => (c.ldap?.address ? [c.ldap.address] : []));
}

/** `text` with every LDAP address of `addresses` replaced by `local` (line numbers kept, so errors point at the same lines). */
function rewrite(text: string, addresses: Set<string>, local: string): string {
  let out = text;
  for (const address of addresses) out = out.split(address).join(local);
  return out;
}

/** Writes the overlay and the copies into `outDir` and says what to serve. */
export async function writeLocalResources(
  examplesDir: string,
  outDir: string,
  targets: LocalTargets,
): Promise<LocalResources> {
  mkdirSync(outDir, { recursive: true });
  const loaded = await loadPaths([examplesDir]);
  const { files } = await listInputFiles([examplesDir]);

  const upstreams: object[] = [];
  const unserved: ServicePortKey[] = [];
  const ldapByFile = new Map<string, Set<string>>();
  for (const { value, file } of loaded.documents) {
    if (value.kind === 'Service') {
      const svc = value as unknown as ServiceDoc;
      const namespace = svc.metadata.namespace ?? 'default';
      for (const { port } of svc.spec?.ports ?? []) {
        const local = targets.services.get(servicePortKey(namespace, svc.metadata.name, port));
        if (local === undefined) {
          unserved.push(servicePortKey(namespace, svc.metadata.name, port));
          continue;
        }
        upstreams.push({
          apiVersion: 'gloo.gateway.example/v1',
          kind: 'Upstream',
          metadata: {
            name: discoveredUpstreamName(namespace, svc.metadata.name, port),
            namespace: DEFAULT_OPTIONS.controlPlaneNamespace,
          },
          spec: { static: { hosts: [{ addr: '127.0.0.1', port: local }] } },
        });
      }
    }
    if (value.kind === 'AuthConfig') {
      const found = ldapAddresses(value as AuthConfigDoc).filter((a) => a !== targets.ldapAddress);
      if (found.length) ldapByFile.set(file, new Set([...(ldapByFile.get(file) ?? []), ...found]));
    }
  }

  const overlay = path.join(outDir, 'upstreams.yaml');
  const header =
    '# Written by npm start (scripts/start-local.ts): the Services of examples/ on loopback. Do not edit.\n';
  writeFileSync(overlay, header + upstreams.map((u) => dump(u, { flowLevel: 3 })).join('---\n'));

  const copies = new Map<string, string>();
  for (const [file, addresses] of ldapByFile) {
    const copy = path.join(outDir, 'ldap', path.relative(examplesDir, file));
    mkdirSync(path.dirname(copy), { recursive: true });
    writeFileSync(copy, rewrite(readFileSync(file, 'utf8'), addresses, targets.ldapAddress));
    copies.set(path.resolve(file), copy);
  }
  const paths = files.map((f) => copies.get(path.resolve(f)) ?? f);
  return { paths: [...paths, overlay], overlay, copies, unserved };
}

/**
 * Copies an edited original again (called when it changes), so an edit of an
 * LDAP example reaches `serve` through its copy. Addresses are those found
 * now, so a changed address is replaced too.
 */
export async function syncCopy(original: string, copy: string, ldapAddress: string): Promise<void> {
  const { documents } = await loadPaths([original]);
  const addresses = new Set(
    documents.filter((d) => d.value.kind === 'AuthConfig').flatMap((d) => ldapAddresses(d.value as AuthConfigDoc)),
  );
  writeFileSync(copy, rewrite(readFileSync(original, 'utf8'), addresses, ldapAddress));
}
