/**
 * The install (deploy/kubernetes/base and its overlays) checked without a
 * cluster: every object against the Kubernetes API schemas (kubernetes-models,
 * unknown fields included), the wiring between objects, least-privilege RBAC,
 * pod hardening, and the flags of serve, the sidecars and Envoy against the
 * objects they name. The base is checked from its files everywhere; where
 * kubectl is installed, what `kubectl kustomize` renders of the base and of
 * each overlay is checked the same way, and kubectl applies the CRDs, the
 * base and the overlays in a client-side dry run against the API server
 * double (discovery finds every kind; the double has no server-side dry
 * run); where KUBECONFIG names a cluster, its API server takes the CRDs and
 * the install in a dry run.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadAll } from 'js-yaml';
import { KubeApiServer, type ResourceType } from '../../harness/kube-apiserver.js';
import { tempDir } from '../../harness/temp-dir.js';
import { ENVOY_IMAGE } from '../../scripts/start-local.js';
import { modelProblems, unknownFieldProblems } from './api-schemas.js';
import {
  container,
  crdResources,
  deployment,
  disruptionProblems,
  flags,
  hardeningProblems,
  name,
  ofKind,
  rbacProblems,
  webhookProblems,
  wiringProblems,
} from './install-checks.js';

const run = promisify(execFile);
type Json = Record<string, any>;

const BASE = 'deploy/kubernetes/base';
const OVERLAYS = ['deploy/kubernetes/overlays/cert-manager'];
const CRDS = ['deploy/kubernetes/crds/sluice.yaml', 'deploy/kubernetes/crds/gloo.yaml'];
const VERSION = JSON.parse(readFileSync('package.json', 'utf8')).version as string;
const BOOTSTRAP_COMMAND = [
  'bootstrap',
  '--xds-address',
  'sluice:18000',
  '--node-id',
  'gateway-proxy',
  '--listener-port',
  '8080',
];

const yamlFile = (file: string) => (loadAll(readFileSync(file, 'utf8')) as Json[]).filter(Boolean);
const kubectl = (process.env.PATH ?? '')
  .split(path.delimiter)
  .map((dir) => path.join(dir, 'kubectl'))
  .find((p) => existsSync(p));
if (!kubectl)
  console.log(
    'test/kubernetes/manifests.test.ts: skipping `kubectl kustomize` of the base and overlays: kubectl is not installed (the base is still checked from its files)',
  );

/** The base as its files hold it, with the ConfigMap its generator makes (kustomize adds a hash of the content to the name). */
function baseFromFiles(): Json[] {
  const kustomization = yamlFile(`${BASE}/kustomization.yaml`)[0]!;
  const objects = (kustomization.resources as string[]).flatMap((file) => yamlFile(`${BASE}/${file}`));
  const generated = (kustomization.configMapGenerator as Json[]).map((g) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: g.name, namespace: kustomization.namespace, labels: g.options?.labels },
    data: Object.fromEntries(
      (g.files as string[])
        .map((f) => f.split('='))
        .map(([key, file]) => [key, readFileSync(`${BASE}/${file}`, 'utf8')]),
    ),
  }));
  return [...objects, ...generated];
}

const crds = CRDS.flatMap(yamlFile);
const crdKinds = crdResources(crds);
const installs = new Map<string, Json[]>([['base (files)', baseFromFiles()]]);
/** What `sluice bootstrap` prints for the install. */
let bootstrap = '';

beforeAll(async () => {
  bootstrap = (await run(process.execPath, ['bin/sluice.js', ...BOOTSTRAP_COMMAND])).stdout;
  if (!kubectl) return;
  for (const dir of [BASE, ...OVERLAYS])
    installs.set(
      `${dir} (kubectl kustomize)`,
      loadAll((await run(kubectl, ['kustomize', dir], { maxBuffer: 16 << 20 })).stdout) as Json[],
    );
});

const names = [`base (files)`, ...[BASE, ...OVERLAYS].map((dir) => `${dir} (kubectl kustomize)`)];
const eachInstall = (title: string, check: (docs: Json[], install: string) => void | Promise<void>) => {
  for (const install of names) {
    const rendered = install !== 'base (files)';
    (rendered && !kubectl ? test.skip : test)(`${install}: ${title}`, async () =>
      check(installs.get(install)!, install),
    );
  }
};

describe('the install', () => {
  eachInstall('every object is valid for the Kubernetes API (kubernetes-models)', async (docs) => {
    expect(docs.length).toBeGreaterThan(20);
    expect(await modelProblems(docs)).toEqual([]);
  });

  eachInstall(
    'selectors, ports, accounts and volumes meet; every Deployment of 2 replicas has a disruption budget',
    (docs) => {
      expect(wiringProblems(docs)).toEqual([]);
      expect(disruptionProblems(docs)).toEqual([]);
      expect(
        ofKind(docs, 'Deployment')
          .map((d) => [name(d), d.spec.replicas])
          .sort(),
      ).toEqual([
        ['sluice-extauth', 2],
        ['sluice-gateway-proxy', 2],
        ['sluice-graphql', 2],
        ['sluice-ratelimit', 2],
        ['sluice-ratelimit-redis', 1],
        ['sluice-serve', 2],
      ]);
    },
  );

  eachInstall(
    'pods are hardened: non-root, read-only root, no privilege escalation, no capabilities, RuntimeDefault seccomp, requests, readiness',
    (docs) => {
      expect(hardeningProblems(docs)).toEqual([]);
      expect(ofKind(docs, 'Namespace').map((n) => n.metadata.labels['pod-security.kubernetes.io/enforce'])).toEqual([
        'restricted',
      ]);
    },
  );

  eachInstall('the webhook covers the kinds of the CRDs (both group sets), fails closed within 5 s', (docs) => {
    expect(crdKinds.length).toBe(26);
    expect(webhookProblems(docs, crdKinds)).toEqual([]);
  });

  eachInstall("RBAC is serve's and least privilege", (docs, install) => {
    const serve = flags(container(deployment(docs, 'sluice-serve')).args);
    expect(
      rbacProblems(docs, crdKinds, serve.get('--status-lease') as string, !install.includes('cert-manager')),
    ).toEqual([]);
  });

  eachInstall(
    'serve: --kube in its own namespace, its ports and the addresses it gives Envoy are the Services of the install',
    (docs, install) => {
      const serve = deployment(docs, 'sluice-serve');
      const c = container(serve);
      const f = flags(c.args);
      const port = (n: string) => String(c.ports.find((p: Json) => p.name === n).containerPort);
      const service = (serviceName: string) => ofKind(docs, 'Service').find((s) => name(s) === serviceName)!;
      expect(c.image).toBe(`sluice:${VERSION}`);
      expect(c.args.slice(0, 2)).toEqual(['bin/sluice.js', 'serve']);
      expect(f.get('--kube')).toBe(true);
      expect([
        f.get('--namespace'),
        c.env.find((e: Json) => e.name === 'POD_NAMESPACE').valueFrom.fieldRef.fieldPath,
      ]).toEqual(['$(POD_NAMESPACE)', 'metadata.namespace']);
      expect(c.env.find((e: Json) => e.name === 'POD_NAME').valueFrom.fieldRef.fieldPath).toBe('metadata.name');
      expect([f.get('--xds-port'), f.get('--admin-port'), f.get('--webhook-port'), f.get('--bind')]).toEqual([
        port('xds'),
        port('admin'),
        port('webhook'),
        '0.0.0.0',
      ]);
      expect(service('sluice').spec.ports).toEqual([expect.objectContaining({ port: 18000, targetPort: 'xds' })]);
      for (const sidecar of ['extauth', 'graphql']) {
        const s = service(`sluice-${sidecar}`);
        expect(f.get(`--${sidecar}-address`)).toBe(`${name(s)}:${s.spec.ports[0].port}`);
        const args = flags(container(deployment(docs, `sluice-${sidecar}`)).args);
        expect([args.get('--xds'), args.get('--port'), args.get('--node-id'), args.get('--bind')]).toEqual([
          'sluice:18000',
          String(s.spec.ports[0].port),
          '$(POD_NAME)',
          '0.0.0.0',
        ]);
        expect(container(deployment(docs, `sluice-${sidecar}`)).image).toBe(`sluice:${VERSION}`);
      }
      const webhook = ofKind(docs, 'ValidatingWebhookConfiguration')[0]!;
      if (install.includes('cert-manager')) {
        const certificate = ofKind(docs, 'Certificate')[0]!;
        const mount = c.volumeMounts.find((m: Json) => m.mountPath === f.get('--webhook-cert-dir'));
        expect(f.has('--webhook-self-signed')).toBe(false);
        expect(serve.spec.template.spec.volumes.find((v: Json) => v.name === mount.name).secret.secretName).toBe(
          certificate.spec.secretName,
        );
        expect(webhook.metadata.annotations['cert-manager.io/inject-ca-from']).toBe(
          `${certificate.metadata.namespace}/${name(certificate)}`,
        );
        expect(certificate.spec.dnsNames).toContain(
          `${webhook.webhooks[0].clientConfig.service.name}.${serve.metadata.namespace}.svc`,
        );
      } else {
        expect(f.get('--webhook-self-signed')).toBe(name(webhook));
        expect([f.has('--webhook-cert-dir'), webhook.webhooks[0].clientConfig.service.name]).toEqual([
          false,
          'sluice-webhook',
        ]);
      }
    },
  );

  eachInstall(
    "Envoy: its bootstrap is `sluice bootstrap`'s for serve's Service, one node id per pod, the pinned image",
    (docs) => {
      const proxy = deployment(docs, 'sluice-gateway-proxy');
      const c = container(proxy);
      const mount = c.volumeMounts.find((m: Json) => m.name === 'bootstrap');
      const configMap = ofKind(docs, 'ConfigMap').find(
        (m) => name(m) === proxy.spec.template.spec.volumes.find((v: Json) => v.name === 'bootstrap').configMap.name,
      )!;
      expect(configMap.data['envoy.yaml']).toBe(bootstrap);
      expect(flags(c.args).get('-c') ?? c.args[c.args.indexOf('-c') + 1]).toBe(`${mount.mountPath}/envoy.yaml`);
      expect([
        flags(c.args).get('--service-node'),
        c.env.find((e: Json) => e.name === 'POD_NAME').valueFrom.fieldRef.fieldPath,
      ]).toEqual(['$(POD_NAME)', 'metadata.name']);
      expect(c.image).toBe(ENVOY_IMAGE);
      expect(c.ports.find((p: Json) => p.name === 'http').containerPort).toBe(
        Number(BOOTSTRAP_COMMAND[BOOTSTRAP_COMMAND.indexOf('--listener-port') + 1]),
      );
    },
  );

  test("base/envoy-bootstrap.yaml is what `sluice bootstrap` prints for serve's Service", () => {
    expect(bootstrap).toContain('address: sluice\n');
    expect(readFileSync(`${BASE}/envoy-bootstrap.yaml`, 'utf8')).toBe(bootstrap);
  });

  test('no object of any install, nor a CRD, has a field the Kubernetes API does not know', () => {
    const all = [...crds, ...[...installs.values()].flat()];
    expect(all.length).toBeGreaterThan(40);
    expect(unknownFieldProblems(all)).toEqual([]);
  }, 120_000);

  test('the unknown-field check finds a misspelt field and a wrong type', () => {
    const proxy = structuredClone(deployment(baseFromFiles(), 'sluice-gateway-proxy'));
    container(proxy).readinesProbe = container(proxy).readinessProbe;
    proxy.spec.replicas = 'two';
    expect(unknownFieldProblems([proxy])).toEqual([
      expect.stringMatching(/^Deployment sluice-gateway-proxy: spec.replicas: Type 'string' is not assignable/),
      expect.stringMatching(
        /^Deployment sluice-gateway-proxy: spec.template.spec.containers.readinesProbe: Object literal may only specify known properties/,
      ),
    ]);
  }, 60_000);

  test('every flag the install gives a binary is one it has', async () => {
    const help = async (bin: string, ...args: string[]) =>
      (await run(process.execPath, [bin, ...args, '--help'])).stdout;
    const docs = baseFromFiles();
    for (const [deploymentName, bin, command] of [
      ['sluice-extauth', 'bin/sluice-extauth.js'],
      ['sluice-graphql', 'bin/sluice-graphql.js'],
      ['sluice-ratelimit', 'bin/sluice-ratelimit.js'],
      ['sluice-serve', 'bin/sluice.js', 'serve'],
    ] as const) {
      const text = await help(bin, ...(command ? [command] : []));
      if (command && !text.includes('--kube')) {
        console.log(
          'test/kubernetes/manifests.test.ts: `sluice serve` has no --kube yet: its flags in deploy/kubernetes/base/serve.yaml are not checked against its --help',
        );
        continue;
      }
      const unknown = [...flags(container(deployment(docs, deploymentName)).args).keys()].filter(
        (flag) => !text.includes(`${flag} `),
      );
      expect({ deploymentName, unknown }).toEqual({ deploymentName, unknown: [] });
    }
  });
});

/** The REST type of each kind the install and the CRDs hold, as a cluster's discovery would list it. */
function typesOf(docs: Json[]): ResourceType[] {
  const clusterScoped = [
    'Namespace',
    'ClusterRole',
    'ClusterRoleBinding',
    'ValidatingWebhookConfiguration',
    'CustomResourceDefinition',
  ];
  const plural = (kind: string) => (kind.endsWith('y') ? `${kind.slice(0, -1)}ies` : `${kind}s`).toLowerCase();
  const types = new Map<string, ResourceType>();
  for (const { apiVersion, kind } of docs) {
    const [group, version] = (apiVersion as string).includes('/')
      ? (apiVersion as string).split('/')
      : ['', apiVersion];
    types.set(`${apiVersion} ${kind}`, {
      group: group!,
      version: version!,
      plural: plural(kind),
      kind,
      namespaced: !clusterScoped.includes(kind),
      unconditionalUpdate: true,
    });
  }
  return [...types.values()];
}

describe('kubectl against the API server double', () => {
  (kubectl ? test : test.skip)(
    'kubectl apply --dry-run=client takes the CRDs, the base and each overlay: every kind found by discovery, every object "created (dry run)", nothing stored',
    async () => {
      const rendered = [BASE, ...OVERLAYS].map((dir) => [dir, installs.get(`${dir} (kubectl kustomize)`)!] as const);
      const all = [...crds, ...rendered.flatMap(([, docs]) => docs)];
      const known = typesOf(all).filter(
        (t) => !['Namespace', 'ConfigMap', 'Service'].includes(t.kind) || t.group !== '',
      );
      const double = await KubeApiServer.start({ types: known });
      try {
        const kubeconfig = path.join(tempDir('kubectl'), 'kubeconfig');
        writeFileSync(kubeconfig, double.kubeconfigYaml());
        const apply = async (...args: string[]) =>
          (
            await run(
              kubectl!,
              ['--kubeconfig', kubeconfig, 'apply', '--dry-run=client', '--validate=false', ...args],
              { maxBuffer: 16 << 20 },
            )
          ).stdout
            .trim()
            .split('\n');
        for (const file of CRDS)
          expect(await apply('-f', file)).toEqual(
            yamlFile(file).map((crd) => `customresourcedefinition.apiextensions.k8s.io/${name(crd)} created (dry run)`),
          );
        for (const [dir, docs] of rendered) {
          const lines = await apply('-k', dir);
          expect(lines.length).toBe(docs.length);
          expect(lines.filter((l) => !l.endsWith(' created (dry run)'))).toEqual([]);
        }
        expect(double.requests.filter((r) => r.method !== 'GET')).toEqual([]);
      } finally {
        await double.close();
      }
    },
    120_000,
  );
});

describe('against a real cluster (KUBECONFIG)', () => {
  const live = kubectl && process.env.KUBECONFIG;
  if (!live)
    console.log(
      'test/kubernetes/manifests.test.ts: skipping the dry runs against a cluster: set KUBECONFIG (and install kubectl) to run them',
    );
  (live ? test : test.skip)(
    'the API server takes the CRDs (server-side dry run: structural schemas checked for real) and kubectl the install (client-side dry run)',
    async () => {
      for (const file of CRDS) await run(kubectl!, ['apply', '--dry-run=server', '-f', file]);
      // The overlays need cert-manager's CRDs in the cluster; the base needs nothing but these.
      await run(kubectl!, ['apply', '--dry-run=client', '--validate=false', '-k', BASE]);
    },
    120_000,
  );
});
