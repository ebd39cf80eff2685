/**
 * The builders every kind definition is written with: TypeBox schemas, whose
 * JSON is what ajv checks and whose `Static<>` types are what resolve reads.
 * Objects are closed (a typo is an error). Where TypeBox would write a shape
 * differently from plain JSON Schema (an enum as `anyOf` of constants, a
 * constant with a `type`, a map as `patternProperties`), the JSON is written
 * out with `Type.Unsafe` and the static type given beside it, so ajv reports
 * the errors users know ("must be one of ...").
 */
import {
  Type,
  type ObjectOptions,
  type SchemaOptions,
  type Static,
  type TObject,
  type TOptional,
  type TProperties,
  type TSchema,
  type TUnsafe,
} from '@sinclair/typebox';

/** A closed object whose properties not named in `R` are optional. */
export type Closed<P extends TProperties, R extends keyof P> = TObject<{
  [K in keyof P]: K extends R ? P[K] : TOptional<P[K]>;
}>;

/**
 * A closed object: `required` lists the properties that must be set, in the
 * order ajv reports them missing; every other property is optional.
 */
export function object<P extends TProperties, R extends keyof P & string = never>(
  properties: P,
  required: readonly R[] = [],
  options: ObjectOptions = {},
): Closed<P, R> {
  const names: readonly string[] = required;
  const props = Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => [name, names.includes(name) ? schema : Type.Optional(schema)]),
  );
  const schema = Type.Object(props, { ...options, additionalProperties: false });
  if (names.length > 0) schema.required = [...names];
  return schema as unknown as Closed<P, R>;
}

/** A map from keys of the form `keys` to values of the form `values`. */
export function mapOf<V extends TSchema>(
  values: V,
  keys: TSchema = nonEmptyString,
  options: SchemaOptions = {},
): TUnsafe<Record<string, Static<V>>> {
  return Type.Unsafe<Record<string, Static<V>>>({
    ...options,
    type: 'object',
    propertyNames: keys,
    additionalProperties: values,
  });
}

/** One of the listed values, spelled exactly. */
export function oneOfValues<const T extends readonly (string | number)[]>(values: T): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ enum: [...values] });
}

/**
 * One of a Gloo proto enum's names, listed in the order of their numbers in
 * the .proto (0 first, no gaps): proto3 JSON also writes an enum as its
 * number, which validate reads as the name (../validate/proto3-json.ts).
 */
export function protoEnum<const T extends readonly string[]>(names: T): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ enum: [...names], [PROTO3]: 'enum' });
}

/** Exactly this value. */
export function constant<const T extends string | boolean>(value: T): TUnsafe<T> {
  return Type.Unsafe<T>({ const: value });
}

/** Any JSON value (a Gloo `google.protobuf.Value`, or what the API server adds). */
export const anyValue = Type.Unknown();

/** At most one of the named properties may be present (a proto oneof that may be left unset): object options. */
export function atMostOne(...names: string[]): ObjectOptions {
  const pairs = names.flatMap((a, i) => names.slice(i + 1).map((b) => ({ required: [a, b] })));
  // `type`: only an object can have two fields set (a wrong type is reported on its own).
  return { not: { type: 'object', anyOf: pairs } };
}

/** Exactly one of the named properties must be present: object options. */
export function exactlyOne(...names: string[]): ObjectOptions {
  return { oneOf: names.map((n) => ({ required: [n] })) };
}

export const string = Type.String();
export const nonEmptyString = Type.String({ minLength: 1 });
export const boolean = Type.Boolean();
export const port = Type.Integer({ minimum: 1, maximum: 65535 });
export const uint32 = Type.Integer({ minimum: 0, maximum: 4294967295 });
export const percentage = Type.Number({ minimum: 0, maximum: 100 });
export const stringMap = mapOf(string);

/** Kubernetes object names (RFC 1123 subdomain) and namespaces (RFC 1123 label). */
export const resourceName = Type.String({ minLength: 1, maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$' });
export const namespaceName = Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' });

// Forms checked by ./formats.ts, each named by its `format`.
export const singleLine = Type.String({ minLength: 1, format: 'single-line' });
/** A single-line string that may be empty. */
export const lineOrEmpty = Type.String({ format: 'single-line' });
/**
 * Marks a schema node whose value is a proto3 JSON well-known type
 * (`google.protobuf.Duration`) or an enum: validate rewrites every form Gloo reads into
 * the canonical one before the schema check (../validate/proto3-json.ts).
 * Stripped from what ajv and the CRDs see.
 */
export const PROTO3 = 'x-proto3';

export const positiveDuration = Type.String({ format: 'positive-duration', [PROTO3]: 'duration' });
/** A duration where "0s" is allowed (Envoy reads it as "none"). */
export const nonNegativeDuration = Type.String({ format: 'non-negative-duration', [PROTO3]: 'duration' });
export const pathPrefix = Type.String({ pattern: '^/', minLength: 1, format: 'path-prefix' });
export const domain = Type.String({ minLength: 1, format: 'domain' });

/** A proto3 JSON duration such as "5s" (Gloo's "1m30s" and "250ms" are rewritten to it); its range is checked by resolve, which says what to write. */
export const duration = Type.String({ [PROTO3]: 'duration' });

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'] as const;
export const httpMethod = oneOfValues(HTTP_METHODS);
