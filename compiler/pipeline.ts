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
import { validateDocuments } from './validate/validate.js';
import { verifyOutput } from './verify/verify.js';

export interface CompileResult {
  output?: CompiledOutput;
  model?: Model;
  /** With output: warnings only. Without: at least one error. */
  diagnostics: Diagnostic[];
}

export async function compileFiles(paths: string[], options: CompileOptions): Promise<CompileResult> {
  const loaded = await loadPaths(paths);
  const validated = validateDocuments(loaded.documents);
  const resolved = resolve(validated.resources, options);
  const inputErrors = [...loaded.diagnostics, ...validated.diagnostics, ...resolved.diagnostics];
  // Translation still runs on what resolved, so one run reports every error it can.
  const translated = translate(resolved.model, options);
  const diagnostics = sortDiagnostics([...inputErrors, ...translated.diagnostics]);
  if (diagnostics.some(isError)) return { diagnostics };
  const verifyErrors = verifyOutput(translated.output);
  if (verifyErrors.length > 0) return { diagnostics: verifyErrors };
  // Only warnings are left: the output is good, and they are shown with it.
  return { output: translated.output, model: resolved.model, diagnostics };
}
