/**
 * Gloo compatibility, carried by the definitions themselves: every field of a
 * Gloo kind is declared in its object, supported (optionally with a remark),
 * supported with a difference, or refused with the reason and what to write
 * instead. The remark rides on the field's schema under `x-gloo`; a refused
 * field is declared as a schema no value fits (`never` in the static type)
 * and is left out of what ajv accepts (./accepted.ts). Validate reports the
 * refused fields a document uses, and docs/gloo-compatibility.md is rendered
 * from the same walk, so the errors and the page never disagree.
 */
import { Type, type TNever, type TOptional, type TSchema } from '@sinclair/typebox';

export const GLOO = 'x-gloo';

export type Support = 'supported' | 'different' | 'refused';

export interface GlooSupport {
  support: Support;
  /** supported: optional remark; different: how Sluice differs from Gloo; refused: why. */
  note?: string;
  /** refused: what to write instead, when something exists. */
  instead?: string;
}

/** Reasons shared by many fields. */
export const REASONS = {
  notYet: 'not implemented yet',
  glooEnvoy: "it needs Gloo's own Envoy build (envoy-gloo filters), and Sluice configures upstream Envoy",
  consul: 'Sluice does not read Consul',
  extensions:
    'opaque configs that Gloo only copies onto its Proxy resource, for other controllers or out-of-process plugins: no Gloo plugin builds Envoy configuration from them, and Sluice has no Proxy resource to carry them (metadata.annotations can hold such data)',
  tracing: 'tracing is not implemented',
} as const;

/** A field Sluice implements as Gloo documents it, with a remark for the page. */
export function note<T extends TSchema>(schema: T, remark: string): T {
  return { ...schema, [GLOO]: { support: 'supported', note: remark } satisfies GlooSupport };
}

/** A field Sluice accepts with a difference from Gloo, stated. */
export function differs<T extends TSchema>(schema: T, difference: string): T {
  return { ...schema, [GLOO]: { support: 'different', note: difference } satisfies GlooSupport };
}

export type Refused = TOptional<TNever>;

/** A Gloo field Sluice does not implement: an error naming it, the reason and what to use instead. */
export function refused(reason: string, instead?: string): Refused {
  return Type.Optional(
    Type.Never({ [GLOO]: { support: 'refused', note: reason, ...(instead ? { instead } : {}) } satisfies GlooSupport }),
  );
}

export const notYet = (): Refused => refused(REASONS.notYet);
export const glooEnvoy = (): Refused => refused(REASONS.glooEnvoy);
export const consul = (): Refused => refused(REASONS.consul, 'use an Upstream with static hosts');

/** The same refusal for each named field. */
export function refuseEach<const N extends string>(names: readonly N[], refusal: () => Refused): Record<N, Refused> {
  return Object.fromEntries(names.map((name) => [name, refusal()])) as Record<N, Refused>;
}

type Json = Record<string, unknown>;

/** One field of a Gloo message, as the page lists it and validate walks it. */
export interface GlooField {
  name: string;
  gloo: GlooSupport;
  /** The message the field holds (itself, or its list items or map values), when it has fields of its own. */
  message?: Json;
  shape?: 'list' | 'map';
}

const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const byName = new WeakMap<object, ReadonlyMap<string, GlooField>>();

/** The fields an object schema declares, by name in order, with their support; worked out once per schema (validate walks every document). */
export function glooFields(schema: object): ReadonlyMap<string, GlooField> {
  let fields = byName.get(schema);
  if (!fields) byName.set(schema, (fields = new Map(fieldsOf(schema as Json).map((f) => [f.name, f]))));
  return fields;
}

function fieldsOf(schema: Json): GlooField[] {
  const properties = isJson(schema.properties) ? schema.properties : {};
  return Object.entries(properties).map(([name, field]) => {
    const f = field as Json;
    const gloo = (f[GLOO] as GlooSupport | undefined) ?? { support: 'supported' };
    if (gloo.support === 'refused') return { name, gloo };
    if (isJson(f.properties)) return { name, gloo, message: f };
    if (f.type === 'array' && isJson(f.items) && isJson(f.items.properties))
      return { name, gloo, message: f.items, shape: 'list' as const };
    if (isJson(f.additionalProperties) && isJson(f.additionalProperties.properties))
      return { name, gloo, message: f.additionalProperties, shape: 'map' as const };
    return { name, gloo };
  });
}
