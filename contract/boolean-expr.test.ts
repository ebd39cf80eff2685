import { BoolExprError, boolExprNames, evaluateBoolExpr, parseBoolExpr } from './boolean-expr.js';

/** The value of `text` with `truth`, and the names asked, in order. */
function run(text: string, truth: Record<string, boolean>) {
  const asked: string[] = [];
  const value = evaluateBoolExpr(parseBoolExpr(text), (n) => {
    asked.push(n);
    return truth[n]!;
  });
  return { value, asked };
}

test("Gloo's example parses; names are listed once, in order", () => {
  expect(boolExprNames(parseBoolExpr('( basic1 || basic2 || (oidc1 && !oidc2) )'))).toEqual([
    'basic1',
    'basic2',
    'oidc1',
    'oidc2',
  ]);
});

test.each([
  ['a || b && c', { a: false, b: true, c: false }, false, ['a', 'b', 'c']],
  ['a || b && c', { a: true, b: false, c: false }, true, ['a']],
  ['(a || b) && c', { a: true, b: false, c: false }, false, ['a', 'c']],
  ['!a && b', { a: true, b: true }, false, ['a']],
  ['!!a', { a: true }, true, ['a']],
  ['a && b && c', { a: true, b: false, c: true }, false, ['a', 'b']],
  ['config_0 || x.y:z-1', { config_0: false, 'x.y:z-1': true }, true, ['config_0', 'x.y:z-1']],
])('%s with %j is %s, asking %j (left to right, short-circuit, ! before && before ||)', (text, truth, value, asked) => {
  expect(run(text, truth)).toEqual({ value, asked });
});

test('a promise from one name makes the value a promise; the rest is asked after it settles', async () => {
  const asked: string[] = [];
  const value = evaluateBoolExpr(parseBoolExpr('slow && (fast || other)'), (n) => {
    asked.push(n);
    return n === 'slow' ? new Promise((r) => setTimeout(() => r(true), 5)) : n === 'fast';
  });
  expect(asked).toEqual(['slow']);
  await expect(value).resolves.toBe(true);
  expect(asked).toEqual(['slow', 'fast']);
});

test.each([
  ['', 'expected a config name, found the end at column 1'],
  ['a &&', 'expected a config name, found the end at column 5'],
  ['(a || b', 'expected ")" at column 8'],
  ['a b', 'unexpected "b" at column 3'],
  ['a & b', 'unexpected "& " at column 3'],
  ['a || )', 'expected a config name, found ")" at column 6'],
])('%j is refused: %s', (text, message) => {
  expect(() => parseBoolExpr(text)).toThrow(BoolExprError);
  expect(() => parseBoolExpr(text)).toThrow(message);
});
