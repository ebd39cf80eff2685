/**
 * Gloo's label selector expressions (RouteTable and gateway selectors,
 * virtualServiceExpressions): Kubernetes label requirements
 * (k8s.io/apimachinery labels.NewRequirement and Requirement.Matches), with
 * Gloo's operator names. Every expression of a selector must hold.
 */
import { fieldError, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import type { LabelExpressionSpec } from '../kinds/routes.js';
import type { Resource } from '../validate/validate.js';

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const INTEGER = /^[+-]?[0-9]+$/;

/** Why Kubernetes would refuse the requirement (and Gloo with it), or undefined. */
export function expressionProblem(
  e: LabelExpressionSpec,
): { field: 'operator' | 'values'; message: string; hint: string } | undefined {
  const op = e.operator ?? 'Equals';
  const values = e.values ?? [];
  switch (op) {
    case 'In':
    case 'NotIn':
      if (values.length === 0)
        return { field: 'values', message: `${op} needs at least one value`, hint: 'list the label values to match' };
      break;
    case 'Equals':
    case 'DoubleEquals':
    case 'NotEquals':
      if (values.length !== 1)
        return {
          field: 'values',
          message: `${op} takes exactly one value, and this expression has ${values.length}`,
          hint: 'give one value, or use In / NotIn for several',
        };
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) return { field: 'values', message: `${op} takes no values`, hint: 'remove values' };
      return undefined;
    case 'GreaterThan':
    case 'LessThan':
      if (values.length !== 1 || !INTEGER.test(values[0]!) || !Number.isSafeInteger(Number(values[0])))
        return { field: 'values', message: `${op} takes exactly one integer value`, hint: 'e.g. values: ["2"]' };
      return undefined;
  }
  const bad = values.find((v) => v.length > 63 || !LABEL_VALUE.test(v));
  return bad === undefined
    ? undefined
    : {
        field: 'values',
        message: `${JSON.stringify(bad)} is not a label value`,
        hint: 'at most 63 letters, digits, "-", "_" and ".", starting and ending with a letter or digit',
      };
}

/** Whether labels satisfy a requirement expressionProblem accepted. */
export function matchesExpression(e: LabelExpressionSpec, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, e.key);
  const value = has ? labels[e.key]! : undefined;
  const values = e.values ?? [];
  switch (e.operator ?? 'Equals') {
    case 'Equals':
    case 'DoubleEquals':
    case 'In':
      return has && values.includes(value!);
    case 'NotEquals':
    case 'NotIn':
      return !has || !values.includes(value!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'GreaterThan':
    case 'LessThan': {
      // Kubernetes: a label value that is not an integer matches neither.
      if (!has || !INTEGER.test(value!)) return false;
      const [mine, bound] = [BigInt(value!), BigInt(values[0]!)];
      return e.operator === 'GreaterThan' ? mine > bound : mine < bound;
    }
  }
}

/** Reports each expression Kubernetes would refuse, at `path`'s index; whether they are all valid. */
export function checkExpressions(
  expressions: readonly LabelExpressionSpec[],
  origin: Origin,
  path: FieldPath,
  diagnostics: Diagnostic[],
): boolean {
  let valid = true;
  expressions.forEach((e, j) => {
    const problem = expressionProblem(e);
    if (problem)
      diagnostics.push(fieldError('resolve', origin, [...path, j, problem.field], problem.message, problem.hint));
    valid &&= !problem;
  });
  return valid;
}

/** A resource's metadata.labels (none: no labels). */
export function labelsOf(resource: Resource): Readonly<Record<string, string>> {
  return (resource.value.metadata as { labels?: Record<string, string> | null } | undefined)?.labels ?? {};
}

/** Whether `own` holds every label of `labels` and satisfies every expression (checked valid). */
export function matchesLabels(
  own: Readonly<Record<string, string>>,
  labels: Readonly<Record<string, string>> | undefined,
  expressions: readonly LabelExpressionSpec[] | undefined,
): boolean {
  return (
    Object.entries(labels ?? {}).every(([k, v]) => own[k] === v) &&
    (expressions ?? []).every((e) => matchesExpression(e, own))
  );
}
