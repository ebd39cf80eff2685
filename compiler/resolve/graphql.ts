/**
 * GraphQLApi resources -> GraphQLApiIR, in both shapes users write: resolutions
 * under `executableSchema` or under Gloo's `executor.local`. Everything
 * sluice-graphql would only find out at run time is checked here: the schema
 * text, `@resolve` names, templates and the arguments they read, upstreams,
 * the descriptor set and the gRPC methods in it. Stitched APIs are checked in
 * graphql-stitched.ts against the schemas built here.
 */
import { isObjectType, type GraphQLField, type GraphQLSchema } from 'graphql';
import protobuf from 'protobufjs';
import { TemplateError, placeholdersIn, type TemplateSource } from '../../contract/graphql-templates.js';
import { asWarning, fieldError, type Diagnostic, type FieldPath } from '../diagnostics.js';
import type {
  ExecutableSchemaSpec,
  GraphQLApiSpec,
  GrpcResolverSpec,
  ResolutionSpec,
  RestResolverSpec,
} from '../kinds/graphql-api.js';
import type { Resource } from '../validate/validate.js';
import { resolveStitched, type ApiSchemas } from './graphql-stitched.js';
import {
  RESOLVE_DIRECTIVE,
  argumentPathProblem,
  buildSdl,
  directiveUses,
  parseSdl,
  sdlMessage,
  withoutDirective,
} from './graphql-schema.js';
import type { FindUpstream, ResourceIndex } from './index.js';
import type {
  ExecutableSchemaIR,
  GraphQLApiIR,
  RemoteExecutorIR,
  ResolutionIR,
  TargetIR,
  UpstreamIR,
} from '../ir/model.js';
import { decodeDescriptorSet, methodProblem } from './grpc-descriptors.js';

type RemoteSpec = NonNullable<NonNullable<ExecutableSchemaSpec['executor']>['remote']>;

/** `@cacheControl` is a schema directive, so only resolve sees it (validate refuses Gloo's unsupported fields). */
const CACHE_CONTROL_REFUSAL = [
  '@cacheControl is not supported: sluice-graphql sends no Cache-Control header',
  'remove @cacheControl from the schema',
] as const;

/** Which template sources each kind of template may read. */
const REQUEST_SOURCES: readonly TemplateSource[] = ['args', 'parent', 'headers'];
const RESPONSE_SOURCES: readonly TemplateSource[] = ['body'];
const REMOTE_SOURCES: readonly TemplateSource[] = ['headers'];

const MAX_TIMEOUT_MS = 0xffffffff;

export function targetOf(upstream: UpstreamIR): TargetIR {
  // sluice-graphql dials a Service by its DNS name, whichever way Envoy reaches its endpoints.
  const hosts =
    upstream.target.kind === 'static'
      ? upstream.target.hosts
      : [{ address: upstream.target.host, port: upstream.target.port }];
  return { cluster: upstream.name, hosts };
}

/** A field that carries `@resolve(name:)`, with where it is written. */
interface Binding {
  typeName: string;
  field: GraphQLField<unknown, unknown>;
  /** Root fields (Query, Mutation) have no parent object. */
  root: boolean;
}

/** The problems of one API, reported against its resource. */
class ApiReport {
  constructor(
    readonly api: Resource,
    private readonly diagnostics: Diagnostic[],
  ) {}

  error(path: FieldPath, message: string, hint?: string): void {
    this.diagnostics.push(fieldError('resolve', this.api.origin, path, message, hint));
  }

  warning(path: FieldPath, message: string, hint?: string): void {
    this.diagnostics.push(asWarning(fieldError('resolve', this.api.origin, path, message, hint)));
  }
}

export function resolveGraphQLApis(
  index: ResourceIndex,
  findUpstream: FindUpstream,
  diagnostics: Diagnostic[],
): GraphQLApiIR[] {
  const apis = index.all('GraphQLApi');
  const schemas: ApiSchemas = new Map();
  const out: GraphQLApiIR[] = [];
  for (const api of apis) {
    const spec = api.spec as GraphQLApiSpec;
    const report = new ApiReport(api, diagnostics);
    const ir: GraphQLApiIR = {
      name: `${api.namespace}.${api.name}`,
      origin: api.origin,
      logSensitiveInfo: spec.options?.logSensitiveInfo ?? false,
      explorer: spec.options?.explorer?.enabled ?? false,
    };
    if (spec.executableSchema) {
      const { executable, schema } = resolveExecutable(spec.executableSchema, report, findUpstream);
      ir.executable = executable;
      schemas.set(ir.name, { api, schema });
    } else {
      schemas.set(ir.name, { api, stitched: spec.stitchedSchema! });
    }
    out.push(ir);
  }
  for (const ir of out) {
    const entry = schemas.get(ir.name)!;
    if (entry.stitched) ir.stitched = resolveStitched(entry.api, entry.stitched, index, schemas, diagnostics);
  }
  return out;
}

function resolveExecutable(
  exe: ExecutableSchemaSpec,
  report: ApiReport,
  findUpstream: FindUpstream,
): { executable: ExecutableSchemaIR; schema?: GraphQLSchema } {
  const base = ['spec', 'executableSchema'];
  const local = exe.executor?.local;
  const remote = exe.executor?.remote;

  // Resolutions sit under executableSchema or under executor.local (where Gloo puts them), never both.
  let resolutionsPath: FieldPath = [...base, 'resolutions'];
  let resolutionSpecs = exe.resolutions;
  if (local?.resolutions) {
    if (exe.resolutions)
      report.error(
        [...base, 'executor', 'local', 'resolutions'],
        'resolutions are written twice: under executableSchema and under executor.local',
        'keep one list of resolutions; move every entry into one of the two places',
      );
    else {
      resolutionsPath = [...base, 'executor', 'local', 'resolutions'];
      resolutionSpecs = local.resolutions;
    }
  }
  const isLocal = local !== undefined || exe.resolutions !== undefined;
  if (isLocal && remote) {
    report.error(
      [...base, 'executor', 'remote'],
      'both a local executor (resolutions) and a remote executor are set',
      'a remote executor sends the whole operation upstream; remove either executor.remote or the local executor and its resolutions',
    );
  } else if (!isLocal && !remote) {
    report.error(
      base,
      'no executor: neither resolutions (executor.local) nor executor.remote is set',
      'add executor.local (with resolutions for the fields that call upstreams) or executor.remote with the upstreamRef of a GraphQL server',
    );
  }

  const executable: ExecutableSchemaIR = {
    schemaDefinition: exe.schemaDefinition,
    enableIntrospection: remote ? false : (local?.enableIntrospection ?? false),
    resolutions: {},
    maxDepth: local?.options?.maxDepth ?? 0,
  };

  const schemaPath = [...base, 'schemaDefinition'];
  const schema = schemaOf(exe.schemaDefinition, schemaPath, report);

  const registry = exe.grpcDescriptorRegistry;
  const regPath = [...base, 'grpcDescriptorRegistry'];
  let services: protobuf.Root | undefined;
  if (registry?.protoDescriptorBin !== undefined) {
    const decoded = decodeDescriptorSet(registry.protoDescriptorBin);
    if ('problem' in decoded)
      report.error(
        [...regPath, 'protoDescriptorBin'],
        decoded.problem,
        'give the base64 of a FileDescriptorSet: `protoc --include_imports --descriptor_set_out=/dev/stdout x.proto | base64 -w0`',
      );
    else {
      executable.protoDescriptorBin = decoded.base64;
      services = decoded.root;
    }
  }

  if (remote) {
    executable.remote = resolveRemote(remote, [...base, 'executor', 'remote'], report, findUpstream);
    for (const b of schema ? bindings(schema).values() : []) {
      for (const { typeName, field } of b)
        report.error(
          schemaPath,
          `${lineOf(field)}${typeName}.${field.name} has @resolve, but a remote executor resolves every field upstream`,
          'remove @resolve from the schema, or use a local executor',
        );
    }
    return { executable, schema };
  }

  const bound = schema ? bindings(schema) : undefined;
  const names = Object.keys(resolutionSpecs ?? {});
  if (bound) {
    for (const { typeName, field } of bound.get(NOT_A_NAME) ?? []) {
      report.error(
        schemaPath,
        `${lineOf(field)}${typeName}.${field.name}: @resolve(name:) takes a string`,
        'write @resolve(name: "<resolution>")',
      );
    }
    for (const [name, fields] of bound) {
      if (name === NOT_A_NAME) continue;
      if (resolutionSpecs?.[name] !== undefined) continue;
      for (const { typeName, field } of fields) {
        report.error(
          schemaPath,
          `${lineOf(field)}${typeName}.${field.name}: @resolve(name: "${name}") names no resolution of this API`,
          names.length ? `resolutions: ${names.join(', ')}` : 'add it under executor.local.resolutions',
        );
      }
    }
  }
  for (const [name, r] of Object.entries(resolutionSpecs ?? {})) {
    const path = [...resolutionsPath, name];
    const fields = bound?.get(name);
    if (bound && !fields)
      report.warning(
        path,
        `resolution "${name}" is not used: no field of the schema has @resolve(name: "${name}")`,
        `add @resolve(name: "${name}") to the field it resolves, or remove the resolution`,
      );
    const resolution = resolveResolution(r, path, report, findUpstream, fields ?? [], services);
    if (resolution) executable.resolutions[name] = resolution;
  }
  return { executable, schema };
}

/** The schema of the text, or undefined after reporting why it does not parse or build. */
function schemaOf(text: string, path: FieldPath, report: ApiReport): GraphQLSchema | undefined {
  const parsed = parseSdl(text);
  for (const p of parsed.problems) report.error(path, `schema does not parse: ${sdlMessage(p)}`, 'fix the GraphQL SDL');
  if (!parsed.doc) return undefined;
  let doc = parsed.doc;
  const cacheControl = directiveUses(doc, 'cacheControl');
  if (cacheControl.length > 0) {
    const [message, hint] = CACHE_CONTROL_REFUSAL;
    report.error(path, `line ${cacheControl[0]!.loc?.startToken.line ?? '?'}: ${message}`, hint);
    doc = withoutDirective(doc, 'cacheControl');
  }
  const built = buildSdl(doc);
  for (const p of built.problems) report.error(path, `schema is not valid: ${sdlMessage(p)}`, 'fix the GraphQL SDL');
  return built.schema;
}

function resolveRemote(
  remote: RemoteSpec,
  path: FieldPath,
  report: ApiReport,
  findUpstream: FindUpstream,
): RemoteExecutorIR | undefined {
  checkTemplates(report, [...path, 'headers'], remote.headers, REMOTE_SOURCES, 'a remote executor');
  checkTemplates(report, [...path, 'queryParams'], remote.queryParams, REMOTE_SOURCES, 'a remote executor');
  const upstream = findUpstream(report.api, [...path, 'upstreamRef'], remote.upstreamRef);
  return (
    upstream && {
      target: targetOf(upstream),
      headers: remote.headers ?? {},
      queryParams: remote.queryParams ?? {},
      spanName: remote.spanName ?? '',
    }
  );
}

/** `line N: ` of a field in the schema text, when graphql kept its location. */
function lineOf(field: GraphQLField<unknown, unknown>): string {
  const line = field.astNode?.loc?.startToken.line;
  return line ? `line ${line}: ` : '';
}

/** The key under which bindings() lists `@resolve(name:)` written with a value that is not a string. */
const NOT_A_NAME = Symbol('not a name');

/** Resolution name -> the fields that carry `@resolve(name:)` with it. */
function bindings(schema: GraphQLSchema): Map<string | typeof NOT_A_NAME, Binding[]> {
  const out = new Map<string | typeof NOT_A_NAME, Binding[]>();
  const roots = new Set(
    [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter(Boolean).map((t) => t!.name),
  );
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      for (const d of field.astNode?.directives ?? []) {
        if (d.name.value !== RESOLVE_DIRECTIVE) continue;
        const arg = d.arguments?.find((a) => a.name.value === 'name');
        // The declared directive makes `name: String!` required; only its value kind is left to check.
        const name = arg?.value.kind === 'StringValue' ? arg.value.value : NOT_A_NAME;
        out.set(name, [...(out.get(name) ?? []), { typeName: type.name, field, root: roots.has(type.name) }]);
      }
    }
  }
  return out;
}

function resolveResolution(
  r: ResolutionSpec,
  path: FieldPath,
  report: ApiReport,
  findUpstream: FindUpstream,
  fields: Binding[],
  services: protobuf.Root | undefined,
): ResolutionIR | undefined {
  const written = (['grpcResolver', 'restResolver'] as const).filter((k) => r[k] !== undefined);
  if (written.length !== 1) {
    report.error(
      path,
      written.length === 0
        ? 'no resolver: set grpcResolver or restResolver'
        : 'both grpcResolver and restResolver are set',
      'a resolution has exactly one resolver',
    );
    return undefined;
  }
  if (r.grpcResolver)
    return grpcResolution(r.grpcResolver, [...path, 'grpcResolver'], report, findUpstream, fields, services);
  return restResolution(r.restResolver!, [...path, 'restResolver'], report, findUpstream, fields);
}

function grpcResolution(
  g: GrpcResolverSpec,
  path: FieldPath,
  report: ApiReport,
  findUpstream: FindUpstream,
  fields: Binding[],
  services: protobuf.Root | undefined,
): ResolutionIR | undefined {
  const t = g.requestTransform;
  const tPath = [...path, 'requestTransform'];
  checkTemplates(
    report,
    [...tPath, 'outgoingMessageJson'],
    t.outgoingMessageJson,
    REQUEST_SOURCES,
    'a request',
    fields,
  );
  checkTemplates(report, [...tPath, 'requestMetadata'], t.requestMetadata, REQUEST_SOURCES, 'a request', fields);
  if (services) {
    const problem = methodProblem(services, t.serviceName, t.methodName);
    if (problem)
      report.error(
        tPath,
        problem,
        'name a service (package.Service) and one of its methods from the descriptor set, or regenerate protoDescriptorBin',
      );
  }
  const timeoutMs = timeoutOf(g.timeout, [...path, 'timeout'], report);
  const upstream = findUpstream(report.api, [...path, 'upstreamRef'], g.upstreamRef);
  if (!upstream || timeoutMs === undefined) return undefined;
  const out: ResolutionIR = {
    kind: 'grpc',
    serviceName: t.serviceName,
    methodName: t.methodName,
    requestMetadata: t.requestMetadata ?? {},
    target: targetOf(upstream),
    timeoutMs,
  };
  if (t.outgoingMessageJson !== undefined) out.outgoingMessageJson = t.outgoingMessageJson;
  return out;
}

function restResolution(
  rest: RestResolverSpec,
  path: FieldPath,
  report: ApiReport,
  findUpstream: FindUpstream,
  fields: Binding[],
): ResolutionIR | undefined {
  const req = rest.request ?? {};
  const res = rest.response ?? {};
  checkTemplates(report, [...path, 'request', 'headers'], req.headers, REQUEST_SOURCES, 'a request', fields);
  checkTemplates(report, [...path, 'request', 'queryParams'], req.queryParams, REQUEST_SOURCES, 'a request', fields);
  checkTemplates(report, [...path, 'request', 'body'], req.body, REQUEST_SOURCES, 'a request', fields);
  checkTemplates(report, [...path, 'response', 'setters'], res.setters, RESPONSE_SOURCES, 'a response setter');
  // resultRoot is a path into the body, written without the template around it.
  if (res.resultRoot)
    checkTemplates(
      report,
      [...path, 'response', 'resultRoot'],
      `{$body.${res.resultRoot}}`,
      RESPONSE_SOURCES,
      'resultRoot',
    );
  const timeoutMs = timeoutOf(rest.timeout, [...path, 'timeout'], report);
  const upstream = findUpstream(report.api, [...path, 'upstreamRef'], rest.upstreamRef);
  if (!upstream || timeoutMs === undefined) return undefined;
  const out: ResolutionIR = {
    kind: 'rest',
    target: targetOf(upstream),
    headers: req.headers ?? {},
    queryParams: req.queryParams ?? {},
    resultRoot: res.resultRoot ?? '',
    setters: res.setters ?? {},
    timeoutMs,
  };
  if (req.body !== undefined) out.body = req.body;
  return out;
}

/**
 * Every template in `value` parses, reads only `sources`, and each
 * `{$args.x}` names an argument of every field the resolution is bound to.
 */
function checkTemplates(
  report: ApiReport,
  path: FieldPath,
  value: unknown,
  sources: readonly TemplateSource[],
  what: string,
  fields: Binding[] = [],
): void {
  if (value === undefined) return;
  // Each string on its own, so an error points at the key that holds it.
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value))
      checkTemplates(report, [...path, Array.isArray(value) ? Number(k) : k], v, sources, what, fields);
    return;
  }
  if (typeof value !== 'string') return;
  let placeholders;
  try {
    placeholders = placeholdersIn(value);
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    report.error(
      path,
      `bad template: ${err.message}`,
      'write {$args.<name>}, {$parent.<field>}, {$headers.<name>} or {$body.<path>}; a literal "{$" cannot be written',
    );
    return;
  }
  for (const p of placeholders) {
    if (!sources.includes(p.source)) {
      report.error(
        path,
        `${p.text}: ${what} cannot read $${p.source}`,
        `${what} may read ${sources.map((s) => `{$${s}.…}`).join(', ')}`,
      );
      continue;
    }
    for (const b of fields) {
      if (p.source === 'parent' && b.root) {
        report.error(
          path,
          `${p.text}: ${b.typeName}.${b.field.name} is a root field and has no parent object`,
          'read {$args.…} or {$headers.…} instead',
        );
      } else if (p.source === 'args') {
        const problem = argumentPathProblem(b.field.args, p.path);
        if (problem)
          report.error(
            path,
            `${p.text}: ${b.typeName}.${b.field.name}: ${problem}`,
            'name an argument the field declares in the schema',
          );
      }
    }
  }
}

/** A proto3 JSON duration ("5s", "0.250s") in milliseconds; undefined after reporting a bad one. */
function timeoutOf(text: string | undefined, path: FieldPath, report: ApiReport): number | undefined {
  if (text === undefined) return 0;
  const m = /^(\d+)(?:\.(\d{1,9}))?s$/.exec(text);
  if (!m) {
    report.error(
      path,
      `"${text}" is not a duration`,
      'write a number with a unit, e.g. "5s", "0.250s", "250ms" or "1m30s"',
    );
    return undefined;
  }
  const nanos = BigInt(m[1]!) * 1_000_000_000n + BigInt((m[2] ?? '').padEnd(9, '0'));
  // Round up: a sub-millisecond timeout stays a timeout, never 0 (the sidecar's default).
  const ms = (nanos + 999_999n) / 1_000_000n;
  if (ms === 0n || ms > BigInt(MAX_TIMEOUT_MS)) {
    report.error(
      path,
      `timeout "${text}" is out of range`,
      `give more than 0s and at most ${MAX_TIMEOUT_MS / 1000}s; leave it out for the sidecar's default`,
    );
    return undefined;
  }
  return Number(ms);
}
