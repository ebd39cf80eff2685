/**
 * The last stage: every message of the xDS set against Envoy's own API protos
 * (proto3 JSON shape, every nested Any, protoc-gen-validate rules) and against
 * the checks Envoy makes when it loads configuration. Input errors were all
 * reported by earlier stages, so anything found here is a compiler bug.
 *
 * A message's own findings (and the names it uses and defines) are kept by
 * object in a VerifyMemo, so a run re-checks only the messages translate made
 * anew; a route configuration is checked per virtual host. The checks across
 * messages (references, names, addresses) run on every run over those facts.
 */
import type { Diagnostic } from '../diagnostics.js';
import { sameHostKeys } from '../order.js';
import { XDS_KINDS, type Json, type XdsSet } from '../translate/output.js';
import { checkMessage, type ProtoIssue } from './proto-json.js';
import { asArray, join, LoadChecks, lowercased, nameOf, T, type Reference } from './load-checks.js';

const ENDPOINTS = XDS_KINDS.find((k) => k.kind === 'endpoints')!;

function bug(resource: string, field: string, message: string, rule: string): Diagnostic {
  return {
    stage: 'verify',
    resource,
    field: field || undefined,
    message: `internal compiler error: ${message} (${rule}); the generated Envoy configuration is invalid, this is a bug in sluice, please report it`,
  };
}

interface Clash {
  index: number;
  rule: string;
  message: string;
}

/** Names used more than once among `items` (listeners, clusters, route configurations). */
function duplicateNames(items: unknown[], kind: string): Clash[] {
  const seen = new Set<string>();
  const out: Clash[] = [];
  items.forEach((item, index) => {
    const name = nameOf(item);
    if (seen.has(name))
      out.push({ index, rule: 'envoy.duplicate_name', message: `${kind} name "${name}" is used twice` });
    seen.add(name);
  });
  return out;
}

/** Two listeners on one address and port: Envoy fails to bind the second. */
function duplicateAddresses(listeners: unknown[]): Clash[] {
  const seen = new Map<string, string>();
  const out: Clash[] = [];
  listeners.forEach((l, index) => {
    const sa = ((l as Json)?.address as Json | undefined)?.socket_address as Json | undefined;
    if (!sa) return;
    const key = `${String(sa.protocol ?? 'TCP')} ${String(sa.address)}:${String(sa.port_value)}`;
    const other = seen.get(key);
    if (other !== undefined)
      out.push({
        index,
        rule: 'envoy.duplicate_address',
        message: `listener address ${key} is also used by listener "${other}"`,
      });
    else seen.set(key, nameOf(l));
  });
  return out;
}

/** References to names no message defines: clusters and jwt_authn requirements. */
function unresolved(
  references: readonly Reference[],
  clusters: ReadonlySet<string>,
  jwtRequirements: ReadonlySet<string>,
  secrets: ReadonlySet<string>,
): ProtoIssue[] {
  return references
    .filter(
      (r) =>
        (r.kind === 'cluster' && !clusters.has(r.name)) ||
        (r.kind === 'jwt_requirement' && !jwtRequirements.has(r.name)) ||
        (r.kind === 'secret' && !secrets.has(r.name)),
    )
    .map((r) => {
      const [message, rule] = MISSING[r.kind](r.name);
      return { path: r.path, rule, message };
    });
}

/**
 * A static bootstrap (`envoy -c`). Each diagnostic's field is the full path in
 * the bootstrap; its resource is the listener or cluster it sits in.
 */
export function verifyBootstrap(bootstrap: Json): Diagnostic[] {
  const sr = (bootstrap.static_resources ?? {}) as Json;
  const listeners = asArray(sr.listeners);
  const clusters = asArray(sr.clusters);
  const checks = new LoadChecks();
  const protoIssues = checkMessage(T.bootstrap, bootstrap, { hooks: checks.hooks });
  checks.ipAddress(
    (bootstrap.admin as Json | undefined)?.address,
    () => 'admin',
    'address.socket_address.address',
    'the admin interface',
  );
  const issues = [
    ...protoIssues,
    ...checks.found,
    ...unresolved(
      checks.references,
      new Set(clusters.map(nameOf)),
      checks.jwtRequirements,
      new Set(asArray(sr.secrets).map(nameOf)),
    ),
    ...duplicateNames(listeners, 'listener').map((c) => ({
      ...c,
      path: `static_resources.listeners[${c.index}].name`,
    })),
    ...duplicateAddresses(listeners).map((c) => ({ ...c, path: `static_resources.listeners[${c.index}].address` })),
    ...duplicateNames(clusters, 'cluster').map((c) => ({ ...c, path: `static_resources.clusters[${c.index}].name` })),
  ];
  const owner = /^static_resources\.(listeners|clusters)\[(\d+)\]/;
  return issues.map((iss) => {
    const m = owner.exec(iss.path);
    const resource = !m
      ? 'Bootstrap'
      : m[1] === 'listeners'
        ? `Listener ${nameOf(listeners[Number(m[2])])}`
        : `Cluster ${nameOf(clusters[Number(m[2])])}`;
    return bug(resource, iss.path, iss.message, iss.rule);
  });
}

/** What checking one message found on its own, and the names it uses and defines. */
interface MessageFacts {
  issues: ProtoIssue[];
  /** The names referred to, each once, by kind: what each run checks. Where each reference is (its path) is found again only when one names nothing (referencesOf): kept for 10,000 virtual hosts, the paths were 15 MiB. */
  names: Record<Reference['kind'], string[]>;
  jwtRequirements: string[];
  /** Of a virtual host: its domains lowercased. */
  domains?: (string | undefined)[];
}

/** Facts of the messages checked so far, by object: a message translate kept is not checked again. */
export class VerifyMemo {
  readonly messages = new WeakMap<Json, MessageFacts>();
  /** Per route configuration: its last virtual hosts, when their names and domains were unique (sameHostKeys). */
  readonly uniqueHosts = new Map<string, Json[]>();
  /** `retain: false` (a one-shot compile, which has no next run): nothing is kept. */
  constructor(readonly retain = true) {}
}

/** The message checked: its issues and references. */
function check(typeName: string, message: Json): { issues: ProtoIssue[]; checks: LoadChecks } {
  const checks = new LoadChecks();
  return { issues: [...checkMessage(typeName, message, { hooks: checks.hooks }), ...checks.found], checks };
}

/** Every reference of the message, with its path. */
function referencesOf(typeName: string, message: Json): Reference[] {
  return check(typeName, message).checks.references;
}

const NO_NAMES: readonly string[] = [];

function factsOf(memo: VerifyMemo, typeName: string, message: Json): MessageFacts {
  let facts = memo.messages.get(message);
  if (!facts) {
    const checked = check(typeName, message);
    const { checks } = checked;
    // Envoy's own check of EDS endpoints, kept with the message's other findings.
    const issues =
      typeName === ENDPOINTS.messageType ? [...checked.issues, ...endpointAddresses(message)] : checked.issues;
    // Most kinds name nothing in most messages: one shared empty list.
    const names = (kind: Reference['kind']) => {
      const unique = [...new Set(checks.references.filter((r) => r.kind === kind).map((r) => r.name))];
      return unique.length > 0 ? unique : (NO_NAMES as string[]);
    };
    facts = {
      issues,
      names: {
        cluster: names('cluster'),
        route_config: names('route_config'),
        jwt_requirement: names('jwt_requirement'),
        secret: names('secret'),
      },
      jwtRequirements: [...checks.jwtRequirements],
      ...(typeName === T.virtualHost ? { domains: lowercased(message) } : {}),
    };
    if (memo.retain) memo.messages.set(message, facts);
  }
  return facts;
}

/** The IP check Envoy makes on EDS endpoints (it resolves no names there). */
function endpointAddresses(assignment: Json): ProtoIssue[] {
  const checks = new LoadChecks();
  asArray(assignment.endpoints).forEach((e, i) =>
    asArray((e as Json)?.lb_endpoints).forEach((lb, j) =>
      checks.ipAddress(
        ((lb as Json)?.endpoint as Json | undefined)?.address,
        () => '',
        `endpoints[${i}].lb_endpoints[${j}].endpoint.address.socket_address.address`,
        'an EDS endpoint',
      ),
    ),
  );
  return checks.found;
}

/** A checked message (or virtual host of a route configuration, under `prefix`) of a served resource. */
interface Checked {
  resource: string;
  prefix: string;
  /** The message as checked, and its type: its references are found again from them. */
  typeName: string;
  message: Json;
  facts: MessageFacts;
}

/**
 * The messages of the set, each with its facts; a route configuration one
 * virtual host at a time (each kept on its own), with its names and domains
 * checked across them.
 */
function checkAll(set: XdsSet, memo: VerifyMemo, diags: Diagnostic[]): Checked[] {
  const checked: Checked[] = [];
  const add = (resource: string, prefix: string, typeName: string, message: Json) => {
    const facts = factsOf(memo, typeName, message);
    for (const iss of facts.issues) diags.push(bug(resource, join(prefix, iss.path), iss.message, iss.rule));
    checked.push({ resource, prefix, typeName, message, facts });
    return facts;
  };
  for (const { kind, messageType, label } of XDS_KINDS) {
    for (const [key, message] of set[kind]) {
      const resource = `${label} ${key}`;
      if (kind === 'routes') {
        add(resource, '', messageType, { ...message, virtual_hosts: [] });
        const list = asArray(message.virtual_hosts) as Json[];
        const vhosts = list.map((vh, i) => add(resource, `virtual_hosts[${i}]`, T.virtualHost, vh));
        // Names and domains as they were when last found unique: unique still, no need to index 10,000 hosts again.
        const before = memo.uniqueHosts.get(key);
        if (!before || !sameHostKeys(before, list)) {
          const across = new LoadChecks();
          across.routeConfiguration(
            message,
            () => '',
            (i) => vhosts[i]!.domains ?? [],
          );
          for (const iss of across.found) diags.push(bug(resource, iss.path, iss.message, iss.rule));
          if (memo.retain && across.found.length === 0) memo.uniqueHosts.set(key, list);
          else memo.uniqueHosts.delete(key);
        }
      } else {
        add(resource, '', messageType, message);
      }
      nameMismatch(kind, key, message, resource, diags);
    }
  }
  return checked;
}

/** A resource served under another name than its own. */
function nameMismatch(kind: string, key: string, message: Json, resource: string, diags: Diagnostic[]): void {
  // A ClusterLoadAssignment is named by its cluster, a RateLimitDomain by its domain.
  const field = kind === 'endpoints' ? 'cluster_name' : kind === 'rateLimitDomains' ? 'domain' : 'name';
  const own = message[field];
  if (own !== key)
    diags.push(
      bug(resource, field, `the resource is named "${String(own)}" but served as "${key}"`, 'envoy.name_mismatch'),
    );
}

/**
 * ClusterLoadAssignments made anew for a set verifySet passed, whose
 * clusters and names they keep (an endpoint change): each checked as
 * verifySet checks it. What verifySet checks across resources does not
 * change with them.
 */
export function verifyEndpoints(assignments: Iterable<[string, Json]>, memo: VerifyMemo): Diagnostic[] {
  const diags: Diagnostic[] = [];
  for (const [key, message] of assignments) {
    const resource = `${ENDPOINTS.label} ${key}`;
    for (const iss of factsOf(memo, ENDPOINTS.messageType, message).issues)
      diags.push(bug(resource, iss.path, iss.message, iss.rule));
    nameMismatch('endpoints', key, message, resource, diags);
  }
  return diags;
}

/**
 * The xDS set: each resource by its own type, plus the checks across
 * resources: cluster, RDS and jwt requirement references, EDS clusters
 * without a load assignment, names, listener addresses. Each diagnostic's
 * field is the path inside its resource. `externalClusters` are defined by
 * the Envoy's own bootstrap (mesh mode's cluster to serve).
 */
export function verifySet(
  set: XdsSet,
  memo = new VerifyMemo(),
  externalClusters: ReadonlySet<string> = new Set(),
): Diagnostic[] {
  const diags: Diagnostic[] = [];
  const checked = checkAll(set, memo, diags);
  const jwtRequirements = new Set<string>();
  for (const c of checked) for (const name of c.facts.jwtRequirements) jwtRequirements.add(name);
  const defined: Record<Reference['kind'], (name: string) => boolean> = {
    cluster: (name) => set.clusters.has(name) || externalClusters.has(name),
    route_config: (name) => set.routes.has(name),
    jwt_requirement: (name) => jwtRequirements.has(name),
    secret: (name) => set.secrets.has(name),
  };
  for (const c of checked) {
    let references: Reference[] | undefined;
    for (const kind of ['cluster', 'route_config', 'jwt_requirement', 'secret'] as const) {
      if (c.facts.names[kind].every(defined[kind])) continue;
      // A name defined nowhere: now the paths of its references; at the message itself for a name it no longer has (changed in place since its facts were kept).
      const names = new Set(c.facts.names[kind].filter((name) => !defined[kind](name)));
      references ??= referencesOf(c.typeName, c.message);
      const placed = references.filter((r) => r.kind === kind && names.has(r.name));
      const unplaced = [...names].filter((name) => !placed.some((r) => r.name === name));
      const missing = [
        ...placed.map((r) => ({ ...r, path: join(c.prefix, r.path) })),
        ...unplaced.map((name) => ({ kind, name, path: c.prefix })),
      ];
      for (const r of missing) diags.push(bug(c.resource, r.path, ...MISSING[kind](r.name)));
    }
  }
  const listeners = [...set.listeners.values()];
  for (const c of duplicateAddresses(listeners))
    diags.push(bug(`Listener ${nameOf(listeners[c.index])}`, 'address', c.message, c.rule));
  for (const [name, cluster] of set.clusters) {
    if (cluster.type !== 'EDS') continue;
    const serviceName = ((cluster.eds_cluster_config as Json | undefined)?.service_name as string | undefined) || name;
    // Envoy would wait for it forever.
    if (!set.endpoints.has(serviceName))
      diags.push(
        bug(
          `Cluster ${name}`,
          'eds_cluster_config',
          `EDS cluster "${serviceName}" has no ClusterLoadAssignment in the set`,
          'envoy.missing_endpoints',
        ),
      );
  }
  return diags;
}

/** The message and rule for a reference to a name nothing defines. */
const MISSING: Record<Reference['kind'], (name: string) => [message: string, rule: string]> = {
  cluster: (name) => [`cluster "${name}" is not defined`, 'envoy.unknown_cluster'],
  route_config: (name) => [
    `RDS route_config_name "${name}" names no RouteConfiguration of the output`,
    'envoy.unknown_route_config',
  ],
  jwt_requirement: (name) => [
    `requirement_name "${name}" is not in the requirement_map of any jwt_authn filter`,
    'envoy.unknown_jwt_requirement',
  ],
  secret: (name) => [`SDS secret "${name}" is not in the output`, 'envoy.unknown_secret'],
};
