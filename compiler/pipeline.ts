/**
 * The whole compiler: load -> validate -> resolve -> translate -> verify.
 * A run with any error yields no output: a broken resource never reaches Envoy.
 * Warnings alone do not stop it; they come back with the output.
 */
import { isError, sortDiagnostics, type Diagnostic } from './diagnostics.js';
import { loadPaths } from './load/load.js';
import { resolve } from './resolve/resolve.js';
import type { Model } from './resolve/model.js';
import { translate } from './translate/translate.js';
import type { CompileOptions, CompiledOutput } from './translate/output.js';
import { validateDocuments, type Validated } from './validate/validate.js';
import { verifyOutput } from './verify/verify.js';

export interface CompileResult {
  output?: CompiledOutput;
  model?: Model;
  /** With output: warnings only. Without: at least one error. */
  diagnostics: Diagnostic[];
}

/** Whether one formatted field path lies inside the other (or is it). */
function overlaps(a: string, b: string): boolean {
  const inside = (x: string, y: string) => x === y || y === '' || x.startsWith(`${y}.`) || x.startsWith(`${y}[`);
  return inside(a, b) || inside(b, a);
}

/**
 * The resolve errors of resources that failed their schema, in the fields
 * that did validate: one run shows a dangling reference next to a bad URL,
 * instead of after the URL is fixed. A second resolve over every named
 * resource; only its findings on the invalid ones are kept (the valid ones'
 * come from the first, which never saw invalid data), and none under a
 * field that failed its schema, since resolve reads those fields as typed.
 */
function referenceErrorsOfInvalid(validated: Validated, options: CompileOptions): Diagnostic[] {
  if (validated.invalid.length === 0) return [];
  const byResource = new Map(validated.invalid.map((i) => [`${i.resource.origin.file}|${i.resource.origin.resource}`, i.errorFields]));
  let diagnostics: Diagnostic[];
  try {
    diagnostics = resolve([...validated.resources, ...validated.invalid.map((i) => i.resource)], options).diagnostics;
  } catch {
    // Data the schema refused may break what resolve assumes; those fields' schema errors stand alone.
    return [];
  }
  return diagnostics.filter((d) => {
    const schemaErrors = byResource.get(`${d.file}|${d.resource}`);
    return schemaErrors !== undefined && !schemaErrors.some((field) => overlaps(d.field ?? '', field));
  });
}

export async function compileFiles(paths: string[], options: CompileOptions): Promise<CompileResult> {
  const loaded = await loadPaths(paths);
  const validated = validateDocuments(loaded.documents);
  const resolved = resolve(validated.resources, options);
  const inputErrors = [...loaded.diagnostics, ...validated.diagnostics, ...resolved.diagnostics, ...referenceErrorsOfInvalid(validated, options)];
  // Translation still runs on what resolved, so one run reports every error it can.
  const translated = translate(resolved.model, options);
  const diagnostics = sortDiagnostics([...inputErrors, ...translated.diagnostics]);
  if (diagnostics.some(isError)) return { diagnostics };
  const verifyErrors = verifyOutput(translated.output);
  if (verifyErrors.length > 0) return { diagnostics: verifyErrors };
  // Only warnings are left: the output is good, and they are shown with it.
  return { output: translated.output, model: resolved.model, diagnostics };
}
