/**
 * Ordering comparisons (`<`, `<=`, `>`, `>=`) that fail safe. In json-logic-js
 * (JavaScript) `null <= 16` is true, so a rule comparing a missing limit or an
 * unparsable quantity passes, and `{"!": {">": …}}` passes for `"abc" > 1`.
 * Here a comparison whose operands have no order has no answer: it throws
 * {@link ComparisonError}, which fails a validate rule (with or without `!`
 * around it) and is an error anywhere else. Operands are ordered when both are
 * numbers, both strings, or a number and a numeric string (json-logic-js
 * semantics then apply); null, missing, NaN, `""`, booleans, lists and
 * objects are not. A deliberate difference from json-logic-js, documented on
 * docs/concepts/rules.md and pinned by the differential test.
 */
import { VerdictError } from '../errors.js';
import { isPlainObject, preview } from '../util/object.js';
import type { Fn } from './scope.js';

/** Thrown when a comparison has no answer. A validate rule that meets one fails; elsewhere it is an evaluation error. */
export class ComparisonError extends VerdictError<'EVALUATION'> {
  override readonly name = 'ComparisonError';
}

export type ComparisonOp = '<' | '<=' | '>' | '>=';

function isNumericString(value: string): boolean {
  return value.trim() !== '' && !Number.isNaN(Number(value));
}

/** Why `value` (read by `source`) cannot be ordered against `other`, or `undefined` when it can. */
function flaw(value: unknown, other: unknown, source: string): string | undefined {
  if (value === null || value === undefined) {
    return `${source} is ${value === null ? 'null' : 'undefined'} (${source.startsWith('quantity of') ? 'missing, or not a Kubernetes quantity' : 'missing'})`;
  }
  if (typeof value === 'number') return Number.isNaN(value) ? `${source} is NaN` : undefined;
  if (typeof value === 'string') {
    if (typeof other === 'string' || isNumericString(value)) return undefined;
    return typeof other === 'number' ? `${source} is ${preview(value, 40)}, a string that is not a number, compared with a number` : undefined;
  }
  return `${source} is ${Array.isArray(value) ? 'a list' : isPlainObject(value) ? 'an object' : `a ${typeof value}`}, which has no order`;
}

function fail(op: string, reason: string): never {
  throw new ComparisonError('EVALUATION', `"${op}" has no answer: ${reason}; guard the value (e.g. {"and": [{"exists": …}, …]}) or give a default ({"var": [path, default]})`);
}

/**
 * The matches (`glob`, `regex`, `starts_with`, `ends_with`, `in`) follow the
 * same rule for the value they test: a missing or null value has no answer
 * (else `{"!": {"glob": ["*:latest", {"var": "job.imag"}]}}` passes on a
 * typo). A missing pattern or list still matches nothing, like an empty one.
 * Throws {@link ComparisonError} naming the value's path; returns the value otherwise.
 */
export function present(op: string, value: unknown, source: string): unknown {
  if (value === null || value === undefined) {
    const what = value === null ? 'null' : 'undefined';
    fail(op, source === what ? `the value it tests is ${what}` : `${source} is ${what} (missing)`);
  }
  return value;
}

/** An operand's value and how it reads in a message. */
type Operand = readonly [value: unknown, source: string];

/** Checks one pair and returns JavaScript's answer, or throws when there is none. */
function ordered(op: ComparisonOp, [x, sx]: Operand, [y, sy]: Operand): boolean {
  const reason = flaw(x, y, sx) ?? flaw(y, x, sy);
  if (reason !== undefined) fail(op, reason);
  switch (op) {
    case '<':
      return (x as number) < (y as number);
    case '<=':
      return (x as number) <= (y as number);
    case '>':
      return (x as number) > (y as number);
    default:
      return (x as number) >= (y as number);
  }
}

/** How an operand reads in a message, from its expression: `element.resources.limits.memory`, `quantity of …`, `16`. */
export function describeOperand(node: unknown): string {
  if (!isPlainObject(node) || Object.keys(node).length !== 1) return Array.isArray(node) ? 'a list' : preview(node, 40);
  const op = Object.keys(node)[0]!;
  const arg = node[op];
  const first = Array.isArray(arg) ? arg[0] : arg;
  if ((op === 'var' || op === 'input') && (typeof first === 'string' || typeof first === 'number')) return first === '' ? 'the current item' : String(first);
  if (op === 'quantity') return `quantity of ${describeOperand(first)}`;
  return `the result of "${op}"`;
}

/**
 * Compiles `op` over two operands (or three for `<` and `<=`: `a < b < c`).
 * Numbers take a fast path; anything else goes through the checks.
 */
export function compileComparison(op: ComparisonOp, args: readonly Fn[], nodes: readonly unknown[]): Fn {
  const none: Fn = () => undefined;
  const [a, b, c] = [args[0] ?? none, args[1] ?? none, args[2]];
  const [sa, sb, sc] = [describeOperand(nodes[0]), describeOperand(nodes[1]), describeOperand(nodes[2])];
  const two = (x: unknown, y: unknown, sx: string, sy: string): boolean => {
    if (typeof x === 'number' && typeof y === 'number') {
      // NaN answers false to everything; it falls through to the checks, which refuse it.
      switch (op) {
        case '<':
          if (x < y) return true;
          if (x >= y) return false;
          break;
        case '<=':
          if (x <= y) return true;
          if (x > y) return false;
          break;
        case '>':
          if (x > y) return true;
          if (x <= y) return false;
          break;
        default:
          if (x >= y) return true;
          if (x < y) return false;
      }
    }
    return ordered(op, [x, sx], [y, sy]);
  };
  if (!c) return (d, s) => two(a(d, s), b(d, s), sa, sb);
  return (d, s) => {
    const va = a(d, s);
    const vb = b(d, s);
    const vc = c(d, s);
    // json-logic-js: a third argument that evaluates to undefined makes it a two-argument comparison.
    return vc === undefined ? two(va, vb, sa, sb) : two(va, vb, sa, sb) && two(vb, vc, sb, sc);
  };
}
