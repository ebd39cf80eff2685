/**
 * What must hold across the objects of an install (deploy/kubernetes/): the
 * wiring between them (selectors, ports, names, the flags that name other
 * objects), least privilege, and the pod hardening. Each check returns one
 * line per problem, naming the object.
 */
type Json = Record<string, any>;

export const name = (doc: Json): string => doc.metadata?.name;
const id = (doc: Json) => `${doc.kind} ${name(doc)}`;
export const ofKind = (docs: Json[], kind: string): Json[] => docs.filter((d) => d.kind === kind);
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

/** The Deployment whose pods carry these labels. */
function selected(docs: Json[], selector: Record<string, string>): Json[] {
  return ofKind(docs, 'Deployment').filter((d) => matches(selector, d.spec.template.metadata.labels));
}

/** `--flag value` pairs of a container's args (flags without a value map to true). */
export function flags(args: string[]): Map<string, string | true> {
  const out = new Map<string, string | true>();
  args.forEach((arg, i) => {
    if (!arg.startsWith('--')) return;
    const next = args[i + 1];
    out.set(arg, next === undefined || next.startsWith('--') ? true : next);
  });
  return out;
}

export const container = (deployment: Json): Json => deployment.spec.template.spec.containers[0];
export const deployment = (docs: Json[], deploymentName: string): Json =>
  ofKind(docs, 'Deployment').find((d) => name(d) === deploymentName)!;

/** Selectors find pods, Services reach named container ports, volumes name objects of the install. */
export function wiringProblems(docs: Json[]): string[] {
  const problems: string[] = [];
  for (const d of ofKind(docs, 'Deployment')) {
    if (!matches(d.spec.selector.matchLabels, d.spec.template.metadata.labels))
      problems.push(`${id(d)}: its selector does not match its pods`);
    const account = d.spec.template.spec.serviceAccountName;
    if (!ofKind(docs, 'ServiceAccount').some((s) => name(s) === account))
      problems.push(`${id(d)}: no ServiceAccount ${account}`);
    for (const v of d.spec.template.spec.volumes ?? []) {
      if (v.configMap && !ofKind(docs, 'ConfigMap').some((c) => name(c) === v.configMap.name))
        problems.push(`${id(d)}: volume ${v.name}: no ConfigMap ${v.configMap.name}`);
    }
    for (const c of d.spec.template.spec.containers) {
      const ports = new Set((c.ports ?? []).map((p: Json) => p.name));
      for (const probe of [c.readinessProbe, c.livenessProbe].filter(Boolean)) {
        const port = probe.httpGet?.port ?? probe.tcpSocket?.port;
        if (typeof port === 'string' && !ports.has(port))
          problems.push(`${id(d)}: a probe names port ${port}, which ${c.name} does not have`);
      }
    }
  }
  for (const kind of ['Service', 'PodDisruptionBudget', 'NetworkPolicy']) {
    for (const doc of ofKind(docs, kind)) {
      const selector =
        kind === 'Service'
          ? doc.spec.selector
          : kind === 'NetworkPolicy'
            ? doc.spec.podSelector.matchLabels
            : doc.spec.selector.matchLabels;
      const pods = selected(docs, selector);
      if (pods.length !== 1) {
        problems.push(`${id(doc)}: selects ${pods.length} Deployments`);
        continue;
      }
      const ports = new Set(container(pods[0]!).ports.map((p: Json) => p.name));
      const targets =
        kind === 'Service'
          ? doc.spec.ports.map((p: Json) => p.targetPort)
          : kind === 'NetworkPolicy'
            ? doc.spec.ingress.flatMap((r: Json) => r.ports.map((p: Json) => p.port))
            : [];
      for (const t of targets)
        if (!ports.has(t)) problems.push(`${id(doc)}: port ${t} is not a named port of ${name(pods[0]!)}`);
    }
  }
  for (const policy of ofKind(docs, 'NetworkPolicy')) {
    for (const from of policy.spec.ingress.flatMap((r: Json) => r.from ?? [])) {
      const names: string[] = from.podSelector.matchLabels
        ? [from.podSelector.matchLabels['app.kubernetes.io/name']]
        : from.podSelector.matchExpressions[0].values;
      for (const n of names)
        if (selected(docs, { 'app.kubernetes.io/name': n }).length !== 1)
          problems.push(`${id(policy)}: admits pods named ${n}, which no Deployment makes`);
    }
  }
  return problems;
}

/** Every Deployment of more than one replica keeps one up through voluntary disruptions. */
export function disruptionProblems(docs: Json[]): string[] {
  return ofKind(docs, 'Deployment')
    .filter((d) => d.spec.replicas > 1)
    .filter(
      (d) =>
        !ofKind(docs, 'PodDisruptionBudget').some(
          (p) =>
            matches(p.spec.selector.matchLabels, d.spec.template.metadata.labels) &&
            (p.spec.minAvailable >= 1 || p.spec.maxUnavailable === 1),
        ),
    )
    .map((d) => `${id(d)}: ${d.spec.replicas} replicas and no PodDisruptionBudget keeping one`);
}

/** Non-root, read-only root filesystem, no privilege escalation, no capabilities, RuntimeDefault seccomp, requests, limits, readiness. */
export function hardeningProblems(docs: Json[]): string[] {
  const problems: string[] = [];
  for (const d of ofKind(docs, 'Deployment')) {
    const pod = d.spec.template.spec;
    if (pod.securityContext?.runAsNonRoot !== true || !(pod.securityContext?.runAsUser > 0))
      problems.push(`${id(d)}: pods must run as a non-root user, by number`);
    if (pod.securityContext?.seccompProfile?.type !== 'RuntimeDefault')
      problems.push(`${id(d)}: seccomp profile must be RuntimeDefault`);
    const token = pod.automountServiceAccountToken !== false;
    const bound = ofKind(docs, 'ClusterRoleBinding')
      .concat(ofKind(docs, 'RoleBinding'))
      .some((b) => b.subjects.some((s: Json) => s.name === pod.serviceAccountName));
    if (token && !bound)
      problems.push(`${id(d)}: mounts an API token its account has no use for (automountServiceAccountToken: false)`);
    for (const c of pod.containers) {
      const s = c.securityContext ?? {};
      if (s.allowPrivilegeEscalation !== false)
        problems.push(`${id(d)}: ${c.name}: allowPrivilegeEscalation must be false`);
      if (s.readOnlyRootFilesystem !== true)
        problems.push(`${id(d)}: ${c.name}: the root filesystem must be read-only`);
      if (JSON.stringify(s.capabilities?.drop) !== '["ALL"]' || s.capabilities?.add)
        problems.push(`${id(d)}: ${c.name}: must drop ALL capabilities and add none`);
      if (s.privileged) problems.push(`${id(d)}: ${c.name}: privileged`);
      if (!c.resources?.requests?.cpu || !c.resources?.requests?.memory || !c.resources?.limits?.memory)
        problems.push(`${id(d)}: ${c.name}: needs cpu and memory requests and a memory limit`);
      if (!c.readinessProbe) problems.push(`${id(d)}: ${c.name}: needs a readiness probe`);
    }
    if (pod.hostNetwork || pod.hostPID || pod.hostIPC || (pod.volumes ?? []).some((v: Json) => v.hostPath))
      problems.push(`${id(d)}: uses the host's namespaces or paths`);
  }
  return problems;
}

/** A CRD's kind as the API addresses it. */
export interface CrdResource {
  group: string;
  version: string;
  plural: string;
}

export function crdResources(crds: Json[]): CrdResource[] {
  return crds.map((c) => ({ group: c.spec.group, version: c.spec.versions[0].name, plural: c.spec.names.plural }));
}

/** The webhook covers exactly the CRDs' kinds, creates and updates, with the settings docs/kubernetes.md states. */
export function webhookProblems(docs: Json[], crds: CrdResource[]): string[] {
  const problems: string[] = [];
  const configs = ofKind(docs, 'ValidatingWebhookConfiguration');
  if (configs.length !== 1 || configs[0]!.webhooks.length !== 1)
    return ['expected one ValidatingWebhookConfiguration with one webhook'];
  const hook = configs[0]!.webhooks[0];
  const settings = {
    admissionReviewVersions: hook.admissionReviewVersions,
    sideEffects: hook.sideEffects,
    failurePolicy: hook.failurePolicy,
    path: hook.clientConfig.service.path,
    port: hook.clientConfig.service.port,
  };
  const wanted = {
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    failurePolicy: 'Fail',
    path: '/validate',
    port: 443,
  };
  if (JSON.stringify(settings) !== JSON.stringify(wanted))
    problems.push(`webhook settings ${JSON.stringify(settings)}, wanted ${JSON.stringify(wanted)}`);
  if (!(hook.timeoutSeconds <= 5))
    problems.push(`webhook timeoutSeconds ${hook.timeoutSeconds}: must be well under the API server's 10 s`);
  const covered = hook.rules.flatMap((r: Json) => {
    if (JSON.stringify(r.operations) !== '["CREATE","UPDATE"]' || r.scope !== 'Namespaced')
      problems.push(`webhook rule ${JSON.stringify(r)}: operations CREATE and UPDATE of namespaced objects`);
    return r.apiGroups.flatMap((g: string) =>
      r.apiVersions.flatMap((v: string) => r.resources.map((p: string) => `${g}/${v}/${p}`)),
    );
  });
  const kinds = crds.map((c) => `${c.group}/${c.version}/${c.plural}`);
  if (JSON.stringify([...covered].sort()) !== JSON.stringify([...kinds].sort()))
    problems.push(`webhook rules cover ${[...covered].sort().join(' ')}; the CRDs are ${[...kinds].sort().join(' ')}`);
  const service = ofKind(docs, 'Service').find(
    (s) => name(s) === hook.clientConfig.service.name && s.metadata.namespace === hook.clientConfig.service.namespace,
  );
  if (!service)
    problems.push(
      `webhook service ${hook.clientConfig.service.namespace}/${hook.clientConfig.service.name} is not in the install`,
    );
  else if (!service.spec.ports.some((p: Json) => p.port === 443 && p.targetPort === 'webhook'))
    problems.push(`${id(service)}: port 443 must reach serve's webhook port`);
  return problems;
}

/**
 * serve's rights are exactly: read the CRDs' kinds and what the cluster
 * knows, write their status, the status Lease, the caBundle of its own
 * webhook configuration (self-signed mode); nobody else gets any.
 */
export function rbacProblems(docs: Json[], crds: CrdResource[], leaseName: string, webhookCa: boolean): string[] {
  const problems: string[] = [];
  const rules = (kind: string, roleName: string) => ofKind(docs, kind).find((r) => name(r) === roleName)?.rules ?? [];
  const grants = (list: Json[]) =>
    list.flatMap((r) =>
      r.apiGroups.flatMap((g: string) =>
        r.resources.map(
          (res: string) => `${g}|${res}|${[...r.verbs].sort().join(',')}|${(r.resourceNames ?? []).join(',')}`,
        ),
      ),
    );
  const wanted = [
    ...crds.map((c) => `${c.group}|${c.plural}|get,list,watch|`),
    ...crds.map((c) => `${c.group}|${c.plural}/status|patch,update|`),
    ...['services', 'pods', 'secrets'].map((r) => `|${r}|get,list,watch|`),
    'discovery.k8s.io|endpointslices|get,list,watch|',
  ];
  const read = grants(rules('ClusterRole', 'sluice-serve'));
  if (JSON.stringify([...read].sort()) !== JSON.stringify([...wanted].sort()))
    problems.push(`ClusterRole sluice-serve grants ${[...read].sort().join(' ')}`);
  const lease = grants(rules('Role', 'sluice-status-lease'));
  if (
    JSON.stringify(lease.sort()) !==
    JSON.stringify([`coordination.k8s.io|leases|create|`, `coordination.k8s.io|leases|get,update|${leaseName}`].sort())
  )
    problems.push(`Role sluice-status-lease grants ${lease.join(' ')}`);
  const ca = grants(rules('ClusterRole', 'sluice-webhook-ca'));
  const webhookName = name(ofKind(docs, 'ValidatingWebhookConfiguration')[0] ?? {});
  const wantedCa = webhookCa
    ? [`admissionregistration.k8s.io|validatingwebhookconfigurations|get,patch|${webhookName}`]
    : [];
  if (JSON.stringify(ca) !== JSON.stringify(wantedCa))
    problems.push(
      `ClusterRole sluice-webhook-ca grants ${ca.join(' ') || 'nothing'}, wanted ${wantedCa.join(' ') || 'nothing'}`,
    );
  const roles = new Set([...ofKind(docs, 'ClusterRole'), ...ofKind(docs, 'Role')].map(name));
  for (const binding of [...ofKind(docs, 'ClusterRoleBinding'), ...ofKind(docs, 'RoleBinding')]) {
    if (!roles.has(binding.roleRef.name))
      problems.push(`${id(binding)}: binds ${binding.roleRef.name}, which is not in the install`);
    for (const s of binding.subjects)
      if (s.kind !== 'ServiceAccount' || s.name !== 'sluice-serve')
        problems.push(`${id(binding)}: grants rights to ${s.kind} ${s.name}`);
  }
  for (const r of [...ofKind(docs, 'ClusterRole'), ...ofKind(docs, 'Role')].flatMap((role) => role.rules)) {
    if ([...r.apiGroups, ...r.resources, ...r.verbs].includes('*'))
      problems.push(`a rule with a wildcard: ${JSON.stringify(r)}`);
  }
  return problems;
}
