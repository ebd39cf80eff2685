/**
 * What ajv checks of a definition: plain JSON Schema, without the refused
 * fields (validate reports those first, with the reason) and without the Gloo
 * remarks or the proto3 JSON marks. A CRD's openAPIV3Schema would start from the same copy.
 */
import { GLOO, type GlooSupport } from './gloo.js';
import { PROTO3 } from './schema.js';

type Json = Record<string, unknown>;

const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keywords whose value is a schema, a list of schemas or a map of them. */
const SCHEMA = new Set(['items', 'additionalProperties', 'propertyNames', 'not']);
const SCHEMA_LISTS = new Set(['oneOf', 'anyOf', 'allOf']);

export function accepted(schema: object): Json {
  const out: Json = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === GLOO || keyword === PROTO3) continue;
    if (keyword === 'properties' && isJson(value)) {
      const kept = Object.entries(value).filter(
        ([, field]) =>
          (field as Json)[GLOO] === undefined || ((field as Json)[GLOO] as GlooSupport).support !== 'refused',
      );
      out.properties = Object.fromEntries(kept.map(([name, field]) => [name, accepted(field as Json)]));
    } else if (SCHEMA.has(keyword) && isJson(value)) out[keyword] = accepted(value);
    else if (SCHEMA_LISTS.has(keyword) && Array.isArray(value)) out[keyword] = value.map((s: Json) => accepted(s));
    else out[keyword] = structuredClone(value);
  }
  return out;
}
