/**
 * Gloo's AuthConfig `booleanExpr`: the configs' names combined with `&&`,
 * `||`, `!` and parentheses, e.g. `( basic1 || basic2 || (oidc1 && !oidc2) )`.
 * `!` binds tightest, then `&&`, then `||`; evaluation goes left to right and
 * stops as soon as the answer is known, so a config whose answer cannot
 * matter is never asked. Parsed by the compiler (an error on the AuthConfig)
 * and by sluice-extauth when it loads a configuration; evaluated by the
 * sidecar and by `sluice explain` with the same code.
 */

export type BoolExpr =
  { kind: 'name'; name: string } | { kind: 'not'; operand: BoolExpr } | { kind: 'and' | 'or'; operands: BoolExpr[] };

export class BoolExprError extends Error {}

/** A config name as an expression may write it. */
const NAME = /[A-Za-z0-9_.:-]+/y;

/** Parses `text`; throws BoolExprError saying what is wrong and where (a 1-based column). */
export function parseBoolExpr(text: string): BoolExpr {
  let at = 0;
  const skip = () => {
    while (at < text.length && /\s/.test(text[at]!)) at++;
  };
  const fail = (what: string): never => {
    throw new BoolExprError(`${what} at column ${at + 1}`);
  };
  const take = (token: string): boolean => {
    skip();
    if (!text.startsWith(token, at)) return false;
    at += token.length;
    return true;
  };
  const list = (kind: 'and' | 'or', operator: string, operand: () => BoolExpr): BoolExpr => {
    const operands = [operand()];
    while (take(operator)) operands.push(operand());
    return operands.length === 1 ? operands[0]! : { kind, operands };
  };
  const or = (): BoolExpr => list('or', '||', and);
  const and = (): BoolExpr => list('and', '&&', unary);
  const unary = (): BoolExpr => (take('!') ? { kind: 'not', operand: unary() } : primary());
  const primary = (): BoolExpr => {
    skip();
    if (take('(')) {
      const inner = or();
      if (!take(')')) fail('expected ")"');
      return inner;
    }
    NAME.lastIndex = at;
    const m = NAME.exec(text);
    if (!m)
      return fail(
        at >= text.length
          ? 'expected a config name, found the end'
          : `expected a config name, found ${JSON.stringify(text[at])}`,
      );
    at += m[0].length;
    return { kind: 'name', name: m[0] };
  };
  const expr = or();
  skip();
  if (at < text.length) fail(`unexpected ${JSON.stringify(text.slice(at, at + 2))}`);
  return expr;
}

/** Every name the expression uses, in the order written. */
export function boolExprNames(expr: BoolExpr): string[] {
  if (expr.kind === 'name') return [expr.name];
  if (expr.kind === 'not') return boolExprNames(expr.operand);
  return [...new Set(expr.operands.flatMap(boolExprNames))];
}

/** A value now, or later. */
export type Pending<T> = T | Promise<T>;

/**
 * The expression's value, asking `value` for a name only when the answer
 * still depends on it, left to right. Synchronous while `value` is: a
 * promise only appears once `value` returns one.
 */
export function evaluateBoolExpr(expr: BoolExpr, value: (name: string) => Pending<boolean>): Pending<boolean> {
  switch (expr.kind) {
    case 'name':
      return value(expr.name);
    case 'not': {
      const inner = evaluateBoolExpr(expr.operand, value);
      return inner instanceof Promise ? inner.then((b) => !b) : !inner;
    }
    default:
      // `&&` stops at the first false, `||` at the first true.
      return shortCircuit(expr.operands, value, expr.kind === 'or', 0);
  }
}

function shortCircuit(
  operands: BoolExpr[],
  value: (name: string) => Pending<boolean>,
  stopAt: boolean,
  from: number,
): Pending<boolean> {
  for (let i = from; i < operands.length; i++) {
    const r = evaluateBoolExpr(operands[i]!, value);
    if (r instanceof Promise)
      return r.then((b) => (b === stopAt ? stopAt : shortCircuit(operands, value, stopAt, i + 1)));
    if (r === stopAt) return stopAt;
  }
  return !stopAt;
}
