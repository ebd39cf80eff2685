/**
 * The whole compiler, the one entry point every caller uses (cli, serve,
 * goldens, benchmarks, tests): load -> validate -> resolve (the IR) ->
 * translate (the xDS set) -> verify. A run with any error yields no output:
 * a broken resource never reaches Envoy. Warnings alone do not stop it; they
 * come back with the output.
 *
 * A Compiler is incremental: it keeps each file's bytes, documents and
 * validated resources, and each stage's memo (results by the objects they
 * came from), so compiling again after an edit re-parses and re-validates the
 * changed files only, re-resolves the resources whose lookups now answer
 * differently, re-translates the IR objects that changed and re-verifies the
 * messages that are new. The result equals a fresh Compiler's, byte for byte
 * (the property test in pipeline.test.ts holds it to that).
 */
import { isError, sortDiagnostics, type Diagnostic } from './diagnostics.js';
import type { Model } from './ir/model.js';
import { listInputFiles, parseBytes, readResourceFile, type LoadResult } from './load/load.js';
import { resolve, ResolveMemo } from './resolve/resolve.js';
import type { CompileOptions, XdsSet } from './translate/output.js';
import { translate, TranslateMemo } from './translate/translate.js';
import { validateDocuments, type Validated } from './validate/validate.js';
import { verifySet, VerifyMemo } from './verify/verify.js';

export interface CompileResult {
  /** The IR; present when the run has no error. */
  ir?: Model;
  /** The xDS set; present when the run has no error. */
  xds?: XdsSet;
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

/** One file as last read: its bytes, and what loading and validating them gave. */
interface FileEntry {
  bytes: Buffer;
  loaded: LoadResult;
  validated: Validated;
}

export class Compiler {
  private files = new Map<string, FileEntry>();
  private readonly resolveMemo = new ResolveMemo();
  private readonly translateMemo = new TranslateMemo();
  private readonly verifyMemo = new VerifyMemo();

  constructor(readonly options: CompileOptions) {}

  async compile(paths: string[]): Promise<CompileResult> {
    const listed = await listInputFiles(paths);
    const loadDiagnostics = [...listed.diagnostics];
    const validated: Validated = { resources: [], invalid: [], diagnostics: [] };
    const files = new Map<string, FileEntry>();
    for (const file of listed.files) {
      const entry = await this.file(file);
      if (!entry) continue;
      files.set(file, entry);
      loadDiagnostics.push(...entry.loaded.diagnostics);
      validated.resources.push(...entry.validated.resources);
      validated.invalid.push(...entry.validated.invalid);
      validated.diagnostics.push(...entry.validated.diagnostics);
    }
    // Files gone from the input are forgotten, with what was made from them.
    this.files = files;
    return this.fromResources(loadDiagnostics, validated);
  }

  /** The file's entry, re-parsed and re-validated only when its bytes changed; undefined when it cannot be read. */
  private async file(file: string): Promise<FileEntry | undefined> {
    const read = await readResourceFile(file);
    if (!('bytes' in read)) return { bytes: Buffer.alloc(0), loaded: read, validated: { resources: [], invalid: [], diagnostics: [] } };
    const known = this.files.get(file);
    if (known && known.bytes.equals(read.bytes)) return known;
    const loaded = parseBytes(file, read.bytes);
    return { bytes: read.bytes, loaded, validated: validateDocuments(loaded.documents) };
  }

  private fromResources(loadDiagnostics: Diagnostic[], validated: Validated): CompileResult {
    const { options } = this;
    const resolved = resolve(validated.resources, options, this.resolveMemo);
    const diagnostics = sortDiagnostics([...loadDiagnostics, ...validated.diagnostics, ...resolved.diagnostics, ...referenceErrorsOfInvalid(validated, options)]);
    if (diagnostics.some(isError)) return { diagnostics };
    const xds = translate(resolved.model, options, this.translateMemo);
    const verifyErrors = verifySet(xds, this.verifyMemo);
    if (verifyErrors.length > 0) return { diagnostics: verifyErrors };
    // Only warnings are left: the output is good, and they are shown with it.
    return { ir: resolved.model, xds, diagnostics };
  }
}

/** One full compile of `paths`. */
export function compileFiles(paths: string[], options: CompileOptions): Promise<CompileResult> {
  return new Compiler(options).compile(paths);
}
