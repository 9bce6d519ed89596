/**
 * `&&`, `||` and `?:` as cel-js evaluates them. The logical operators are commutative over errors: the
 * left operand's error is held, and a decisive right operand wins over it (`error && false` is false,
 * `false && error` is false); a non-bool operand is an `invalid_logical_operand` error.
 */
import type { Planner, Scope } from './plan.js';
import type { Evaluator, PlanNode, Step } from './node.js';
import { NotPlanned } from './node.js';

function operands(node: PlanNode): [PlanNode, PlanNode] {
  if (!node.left || !node.right) throw new NotPlanned(`${node.op} without operands`);
  return [node.left, node.right];
}

function operandError(ev: Evaluator, value: unknown, node: PlanNode): Error {
  return ev.createError('invalid_logical_operand', `Logical operator requires bool operands, got '${ev.debugRuntimeType(value).name}'`, node);
}

/** cel-js `_logicalOp`: `decisive` is the value that decides (false for `&&`, true for `||`). */
export function combine(decisive: boolean, ev: Evaluator, leftNode: PlanNode, operandsOf: readonly [unknown, unknown]): boolean {
  const [left, right] = operandsOf;
  if (right === decisive) return decisive;
  if (right === !decisive) {
    if (left === right) return right;
    throw left instanceof Error ? left : operandError(ev, left, leftNode);
  }
  throw operandError(ev, right, leftNode);
}

function planLogical(p: Planner, node: PlanNode, scope: Scope, decisive: boolean): Step {
  const [l, r] = operands(node);
  const left = p.plan(l, scope);
  const right = p.plan(r, scope);
  const ev = p.ev;
  return (f) => {
    let value: unknown;
    try {
      value = left(f);
    } catch (error) {
      value = error;
    }
    if (value === decisive) return decisive;
    const other = right(f);
    if (value === !decisive && typeof other === 'boolean') return other;
    return combine(decisive, ev, l, [value, other]);
  };
}

export function planAnd(p: Planner, node: PlanNode, scope: Scope): Step {
  return planLogical(p, node, scope, false);
}

export function planOr(p: Planner, node: PlanNode, scope: Scope): Step {
  return planLogical(p, node, scope, true);
}

export function planTernary(p: Planner, node: PlanNode, scope: Scope): Step {
  const c = node.condition;
  if (!c || !node.left || !node.right) throw new NotPlanned('?: without operands');
  const test = p.plan(c, scope);
  const yes = p.plan(node.left, scope);
  const no = p.plan(node.right, scope);
  const ev = p.ev;
  const label = c.meta.label || 'Ternary condition must be bool';
  const constant = (n: PlanNode, v: boolean) => n.op === 'value' && n.args === v && !n.meta.alternate && !n.meta.macro;
  if (constant(node.left, true) && constant(node.right, false)) {
    // `c ? true : false`, the step of all() and exists(): the condition itself, when it is a bool.
    return (f) => {
      const value = test(f);
      if (value === true || value === false) return value;
      throw ev.createError('invalid_condition_type', `${label}, got '${ev.debugRuntimeType(value).name}'`, c);
    };
  }
  return (f) => {
    const value = test(f);
    if (value === true) return yes(f);
    if (value === false) return no(f);
    throw ev.createError('invalid_condition_type', `${label}, got '${ev.debugRuntimeType(value).name}'`, c);
  };
}
