import type { LabelExpressionSpec } from '../kinds/routes.js';
import { expressionProblem, matchesExpression } from './label-expressions.js';

test("label expressions match as Kubernetes' requirements do: absent labels pass NotIn and NotEquals, non-integers fail GreaterThan", () => {
  const labels = { tier: 'gold', size: '10', name: 'x1' };
  const cases: [LabelExpressionSpec, boolean][] = [
    [{ key: 'tier', values: ['gold'] }, true],
    [{ key: 'tier', operator: 'DoubleEquals', values: ['silver'] }, false],
    [{ key: 'tier', operator: 'In', values: ['silver', 'gold'] }, true],
    [{ key: 'zone', operator: 'NotIn', values: ['a'] }, true],
    [{ key: 'tier', operator: 'NotEquals', values: ['gold'] }, false],
    [{ key: 'zone', operator: 'Exists' }, false],
    [{ key: 'zone', operator: 'DoesNotExist' }, true],
    [{ key: 'size', operator: 'GreaterThan', values: ['9'] }, true],
    [{ key: 'size', operator: 'LessThan', values: ['-1'] }, false],
    [{ key: 'name', operator: 'GreaterThan', values: ['0'] }, false],
  ];
  for (const [expression, expected] of cases)
    expect([expression, matchesExpression(expression, labels)]).toEqual([expression, expected]);
});

test('expressions Kubernetes would refuse are problems, at the field to fix', () => {
  expect(expressionProblem({ key: 'a', operator: 'In' })?.message).toBe('In needs at least one value');
  expect(expressionProblem({ key: 'a', values: ['b', 'c'] })?.message).toBe(
    'Equals takes exactly one value, and this expression has 2',
  );
  expect(expressionProblem({ key: 'a', operator: 'Exists', values: ['b'] })?.message).toBe('Exists takes no values');
  expect(expressionProblem({ key: 'a', operator: 'LessThan', values: ['1.5'] })?.message).toBe(
    'LessThan takes exactly one integer value',
  );
  expect(expressionProblem({ key: 'a', operator: 'In', values: ['-b'] })?.message).toBe('"-b" is not a label value');
  expect(expressionProblem({ key: 'a', operator: 'NotIn', values: ['', 'b.c_d'] })).toBeUndefined();
});
