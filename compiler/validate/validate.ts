/**
 * Validate: each loaded document against the JSON Schema of its
 * apiVersion/kind (ajv). Errors carry file:line, resource and field path.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { fieldError, quote, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import { accepted } from '../kinds/accepted.js';
import { definitionOf, GLOO_API_ALIASES, KINDS, refusedKind } from '../kinds/index.js';
import { DEFAULT_NAMESPACE, type LoadedDocument } from '../load/load.js';
import { glooRefusals, kindRefusal } from './gloo-refusals.js';
import { FORMATS } from '../kinds/formats.js';
import { normaliseDocument } from './proto3-json.js';
import { schemaCheck } from './schema-check.js';
import { allowedFields, closestName, consequencesOfTypos } from './typos.js';

/** A document that passed its schema: typed envelope, spec still plain data. */
export interface Resource<Spec = Record<string, unknown>> {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
  spec: Spec;
  /** The whole document, for kinds (Secret) whose data is not under spec. */
  value: Record<string, unknown>;
  origin: Origin;
}

const validators = new Map<string, ValidateFunction>();

/** The schema check of one apiVersion and kind, compiled when first asked for: an input with three kinds pays for three schemas, not all of them. */
function validatorFor(apiVersion: string, kind: string): ValidateFunction | undefined {
  const key = `${apiVersion}|${kind}`;
  let validate = validators.get(key);
  if (validate) return validate;
  const definition = definitionOf(apiVersion, kind);
  if (!definition) return undefined;
  validators.set(key, (validate = schemaCheck(accepted(definition.document))));
  return validate;
}

/** A document that failed its schema but is named: its other fields can still be checked for references. */
export interface InvalidResource {
  resource: Resource;
  /** Formatted paths of its schema errors; nothing under them is read. */
  errorFields: string[];
}

export interface Validated {
  resources: Resource[];
  invalid: InvalidResource[];
  diagnostics: Diagnostic[];
}

export function validateDocuments(documents: LoadedDocument[]): Validated {
  const resources: Resource[] = [];
  const invalid: InvalidResource[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const loaded of documents) {
    let doc = loaded;
    const { apiVersion, kind } = doc.value;
    const typed = typeof apiVersion === 'string' && typeof kind === 'string';
    // Gloo's API groups are aliases: the document is validated, and later read, as Sluice's own.
    const canonical = typed && Object.hasOwn(GLOO_API_ALIASES, apiVersion) ? GLOO_API_ALIASES[apiVersion] : apiVersion;
    const validate = typed ? validatorFor(canonical as string, kind) : undefined;
    if (!validate) {
      const refused = typed ? refusedKind(apiVersion, kind) : undefined;
      diagnostics.push(refused ? kindRefusal(doc, refused) : unknownKind(doc));
      continue;
    }
    const definition = definitionOf(canonical as string, kind as string)!;
    // A Gloo kind's spec is read as Gloo reads it (proto3 JSON's other spellings), then checked in one spelling.
    let spellings: Diagnostic[] = [];
    if (definition.glooApiVersion && definition.spec)
      ({ doc, diagnostics: spellings } = normaliseDocument(doc, definition.spec));
    const refusals = [...spellings, ...(definition.glooApiVersion ? glooRefusals(doc, definition) : [])];
    const valid = validate(canonical === apiVersion ? doc.value : { ...doc.value, apiVersion: canonical });
    const errors = valid ? [] : toDiagnostics(validate.errors ?? [], doc);
    // What Sluice does not implement is said first; schema hints only once nothing unsupported is left.
    diagnostics.push(...(refusals.length > 0 ? refusals : errors));
    const meta = doc.value.metadata as { name?: unknown; namespace?: unknown } | undefined;
    const named =
      typeof meta?.name === 'string' && (meta.namespace === undefined || typeof meta.namespace === 'string');
    const ok = valid && refusals.length === 0;
    if (
      !ok &&
      (!named || errors.some((e) => e.field === '' || e.field === 'metadata' || e.field?.startsWith('metadata.')))
    )
      continue;
    const resource: Resource = {
      apiVersion: canonical as string,
      kind: kind as string,
      name: meta!.name as string,
      namespace: (meta!.namespace as string | undefined) ?? DEFAULT_NAMESPACE,
      spec: (doc.value.spec ?? {}) as Record<string, unknown>,
      value: doc.value,
      origin: doc.origin,
    };
    if (ok) resources.push(resource);
    else invalid.push({ resource, errorFields: [...refusals, ...errors].map((e) => e.field ?? '') });
  }
  return { resources, invalid, diagnostics };
}

function unknownKind(doc: LoadedDocument): Diagnostic {
  const { apiVersion, kind } = doc.value;
  const known = KINDS.map((k) => `${k.kind} (${k.apiVersion})`).join(', ');
  if (typeof apiVersion !== 'string')
    return fieldError(
      'validate',
      doc.origin,
      ['apiVersion'],
      'missing or non-string apiVersion',
      `known kinds: ${known}`,
    );
  if (typeof kind !== 'string')
    return fieldError('validate', doc.origin, ['kind'], 'missing or non-string kind', `known kinds: ${known}`);
  const own = KINDS.filter((k) => k.kind === kind).map((k) => k.apiVersion);
  const versions = [
    ...own,
    ...Object.entries(GLOO_API_ALIASES)
      .filter(([, v]) => own.includes(v))
      .map(([alias]) => alias),
  ];
  if (versions.length > 0) {
    return fieldError(
      'validate',
      doc.origin,
      ['apiVersion'],
      `apiVersion ${quote(apiVersion)} is not supported for ${kind}`,
      `use ${versions.map((v) => `"${v}"`).join(' or ')}`,
    );
  }
  return fieldError(
    'validate',
    doc.origin,
    ['kind'],
    `unknown kind ${quote(kind)} in apiVersion ${quote(apiVersion)}`,
    `known kinds: ${known}`,
  );
}

function pointerToPath(pointer: string): (string | number)[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/**
 * Turns ajv's errors into one readable diagnostic per field: a field that
 * breaks several rules (too long and of the wrong form) gets one error that
 * lists them, so a huge value cannot multiply the output.
 */
function toDiagnostics(errors: ErrorObject[], doc: LoadedDocument): Diagnostic[] {
  // Branch failures of an exactly-one choice are summarised by the oneOf error itself.
  const oneOfSchemas = new Set(errors.filter((e) => e.keyword === 'oneOf').map((e) => e.schemaPath));
  // A bad key's own error (inside propertyNames) says more than "has an invalid key".
  const keyErrors = new Set(errors.filter((e) => e.propertyName !== undefined).map((e) => e.instancePath));
  // A misspelt field is reported as itself, not also as the field or choice it leaves out.
  const typos = consequencesOfTypos(errors);
  const relevant = errors.filter(
    (e) =>
      ![...oneOfSchemas].some((s) => e.schemaPath.startsWith(`${s}/`)) &&
      !(e.keyword === 'propertyNames' && keyErrors.has(e.instancePath)) &&
      ![...typos].some((s) => e.schemaPath === s || e.schemaPath.startsWith(`${s}/`)),
  );
  const out = new Map<string, Diagnostic>();
  for (const err of relevant) {
    const path: FieldPath = pointerToPath(err.instancePath);
    const [fieldPath, message, hint] = describe(err, path);
    const d = fieldError('validate', doc.origin, fieldPath, message, hint);
    const same = out.get(d.field ?? '');
    if (!same) out.set(d.field ?? '', d);
    else if (!same.message.split('; ').includes(d.message)) {
      same.message = `${same.message}; ${d.message}`;
      if (d.hint && !same.hint?.includes(d.hint)) same.hint = same.hint ? `${same.hint}; ${d.hint}` : d.hint;
    }
  }
  return [...out.values()];
}

const TYPE_NAMES: Record<string, string> = {
  object: 'a mapping',
  array: 'a list',
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
};

/** Never echoes the value: it may be a Secret's password. */
function typeHint(expected: string, data: unknown): string {
  // `admin: true` or `port: "80"`: YAML read a scalar as another type than meant.
  if (expected === 'string' && (typeof data === 'number' || typeof data === 'boolean'))
    return 'quote the value (unquoted, YAML reads it as a number or boolean)';
  if (expected === 'integer' && typeof data === 'string' && /^\d+$/.test(data))
    return 'remove the quotes around the number';
  return `give ${expected
    .split(',')
    .map((t) => TYPE_NAMES[t] ?? t)
    .join(' or ')}`;
}

function describe(err: ErrorObject, path: FieldPath): [FieldPath, string, string | undefined] {
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'additionalProperties': {
      const name = String(p.additionalProperty);
      const allowed = allowedFields(err);
      const meant = closestName(name, allowed);
      const list = allowed.length ? `allowed fields here: ${allowed.join(', ')}` : 'remove it';
      return [
        [...path, name],
        `unknown field ${quote(name)}`,
        meant ? `did you mean ${meant}? ${list[0]!.toUpperCase()}${list.slice(1)}` : list,
      ];
    }
    case 'required':
      return [path, `missing required field "${p.missingProperty}"`, `add ${p.missingProperty}`];
    case 'oneOf': {
      const branches = ((err.schema as { required: string[] }[]) ?? []).map((s) => s.required?.[0]).filter(Boolean);
      const data = err.data as Record<string, unknown> | null;
      const present = branches.filter((b) => data && typeof data === 'object' && b in data);
      return [
        path,
        `exactly one of ${branches.map((b) => `"${b}"`).join(', ')} must be set`,
        present.length === 0 ? 'add one of them' : `keep one of ${present.join(', ')} and remove the others`,
      ];
    }
    case 'not': {
      // Only atMostOne (../kinds/schema.ts) uses `not`: pairs of fields that may not both be set.
      const names = [
        ...new Set(((err.schema as { anyOf?: { required: string[] }[] }).anyOf ?? []).flatMap((s) => s.required)),
      ];
      const data = err.data as Record<string, unknown>;
      const present = names.filter((n) => n in data);
      return [
        path,
        `at most one of ${names.map((n) => `"${n}"`).join(', ')} may be set`,
        `keep one of ${present.join(', ')} and remove the others`,
      ];
    }
    case 'type':
      return [path, `must be of type ${p.type}`, typeHint(String(p.type), err.data)];
    case 'const':
      return [path, `must be "${p.allowedValue}"`, `set it to ${p.allowedValue}`];
    case 'enum':
      return [
        path,
        `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
        'use one of these values, spelled exactly so',
      ];
    case 'pattern':
      return [path, `does not match the required form ${p.pattern}`, patternHint(String(p.pattern))];
    case 'propertyNames':
      return [path, `has an invalid key ${quote(String(p.propertyName))}`, 'rename or remove that key'];
    case 'format': {
      // Only FORMATS are registered; the value is shown, cut: these fields hold names and addresses, not secrets.
      const format = FORMATS[String(p.format)];
      const value = String(err.data);
      return [
        path,
        `${err.propertyName !== undefined ? 'key ' : ''}${quote(value)} ${format.problem(value)}`,
        format.hint(value),
      ];
    }
    default:
      return [path, err.message ?? `fails ${err.keyword}`, limitHint(err)];
  }
}

/** What to do about a broken bound (ajv's message already says which bound). */
function limitHint(err: ErrorObject): string | undefined {
  const schema = err.parentSchema as { minimum?: number; maximum?: number } | undefined;
  const limit = (err.params as { limit?: number }).limit;
  switch (err.keyword) {
    case 'minimum':
    case 'maximum':
      return schema?.minimum !== undefined && schema.maximum !== undefined
        ? `use a value from ${schema.minimum} to ${schema.maximum}`
        : undefined;
    case 'minLength':
      return limit === 1 ? 'give a non-empty value' : `give at least ${limit} characters`;
    case 'maxLength':
      return `shorten it to at most ${limit} characters`;
    case 'minItems':
      return `list at least ${limit} item${limit === 1 ? '' : 's'}`;
    case 'minProperties':
      return `add at least ${limit} entr${limit === 1 ? 'y' : 'ies'}`;
    case 'uniqueItems':
      return 'remove the duplicate';
    default:
      return undefined;
  }
}

function patternHint(pattern: string): string | undefined {
  if (pattern.startsWith('^[a-z0-9]'))
    return 'use lower-case letters, digits, "-" and "."; start and end with a letter or digit';
  if (pattern === '^/') return 'a path prefix starts with "/"';
  if (pattern.startsWith('^https?://')) return 'give an http:// or https:// URL';
  if (pattern.startsWith('^[A-Za-z0-9+/]')) return 'Secret data values are base64; use stringData for plain text';
  return undefined;
}
