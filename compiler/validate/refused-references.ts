/**
 * A reference to a resource that is in the inputs but was refused (a schema
 * error, a Gloo field Sluice does not implement) must not read "not found —
 * define it": the user did define it, and would go looking for a typo in the
 * name. Resolve marks each "not found" with the resource it names; this says
 * instead that the resource was refused, and where its error is.
 */
import { isError, type Diagnostic } from '../diagnostics.js';

/** `diagnostics` with each "not found" of a refused resource rewritten, and the marks removed. */
export function explainRefusedReferences(diagnostics: Diagnostic[]): Diagnostic[] {
  // A resource's first validate error, by `Kind namespace/name` (how diagnostics name their resource).
  const refused = new Map<string, Diagnostic>();
  for (const d of diagnostics) {
    if (d.stage !== 'validate' || !isError(d) || d.resource === undefined) continue;
    const first = refused.get(d.resource);
    if (!first || before(d, first)) refused.set(d.resource, d);
  }
  return diagnostics.map((d) => {
    if (d.reference === undefined) return d;
    const { reference, ...plain } = d;
    const error = refused.get(reference);
    if (!error) return plain;
    const where = error.file ? ` (${error.file}${error.line ? `:${error.line}` : ''})` : '';
    return {
      ...plain,
      message: `${reference} was refused: see the error ${before(error, d) ? 'above' : 'below'}`,
      hint: `fix ${reference}${where}; this reference then finds it`,
    };
  });
}

/** Whether `a` is printed before `b` (the order of sortDiagnostics). */
function before(a: Diagnostic, b: Diagnostic): boolean {
  return (
    (a.file ?? '').localeCompare(b.file ?? '') < 0 ||
    ((a.file ?? '') === (b.file ?? '') && (a.line ?? 0) < (b.line ?? 0))
  );
}
