/**
 * A misspelt field is one mistake, not two: ajv reports the unknown name and,
 * on its own, what the missing name leaves undone (a required field absent,
 * an exactly-one choice unmade). The unknown field is said with the name it
 * most likely stands for, and the errors that only follow from it are left
 * out: once the name is fixed they are gone, and read first they send the
 * user to add a field that is already there, misspelt.
 */
import type { ErrorObject } from 'ajv';
import leven from 'leven';
import { lowerCamel } from '../../contract/proto3-json.js';

/** The known name `name` most likely misspells (case aside, at most one edit in four), if any; a snake_case name is compared in its lowerCamelCase form too, as proto3 JSON reads it. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  return nearest(name, known) ?? (name.includes('_') ? nearest(lowerCamel(name), known) : undefined);
}

function nearest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const allowed = Math.max(1, Math.floor(candidate.length / 4));
    // Lengths further apart than the allowed edits cannot be near: a megabyte-long key is not compared.
    if (Math.abs(name.length - candidate.length) > allowed) continue;
    const distance = leven(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= allowed && distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/** The fields an `additionalProperties` error's object allows. */
export function allowedFields(err: ErrorObject): string[] {
  return Object.keys((err.parentSchema as { properties?: object } | undefined)?.properties ?? {});
}

/** The names the branches of a oneOf/anyOf of `required` lists ask for (none when a branch asks for more than that). */
function choiceNames(err: ErrorObject): string[] {
  const branches = Array.isArray(err.schema) ? (err.schema as { required?: string[] }[]) : [];
  return branches.every((b) => b.required?.length === 1 && Object.keys(b).length === 1)
    ? branches.map((b) => b.required![0]!)
    : [];
}

/** The schema paths of the errors that follow only from a misspelt field of the same object; errors under them go too. */
export function consequencesOfTypos(errors: ErrorObject[]): Set<string> {
  const meant = new Map<string, Set<string>>();
  for (const err of errors) {
    if (err.keyword !== 'additionalProperties') continue;
    const name = closestName(
      String((err.params as { additionalProperty: string }).additionalProperty),
      allowedFields(err),
    );
    if (name) meant.set(err.instancePath, (meant.get(err.instancePath) ?? new Set()).add(name));
  }
  const out = new Set<string>();
  for (const err of errors) {
    const names = meant.get(err.instancePath);
    if (!names) continue;
    if (err.keyword === 'required' && names.has(String((err.params as { missingProperty: string }).missingProperty)))
      out.add(err.schemaPath);
    if (err.keyword === 'oneOf' || err.keyword === 'anyOf') {
      // Only a choice none of whose names is written: two set at once is a mistake of its own.
      const choices = choiceNames(err);
      const data = err.data as Record<string, unknown>;
      if (choices.some((c) => names.has(c)) && !choices.some((c) => Object.hasOwn(data, c))) out.add(err.schemaPath);
    }
  }
  return out;
}
