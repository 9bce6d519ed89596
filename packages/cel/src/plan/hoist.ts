/**
 * Loop-invariant calls. Inside a comprehension (or `cel.bind`), a call whose arguments read no bound name
 * (`quantity(params.data.limit)` in `containers.all(c, …)`) gives the same value on every step, since
 * every function of a pure environment (cel-js's and verdict's own, no adapter function) depends on its
 * arguments only. It is computed when first needed in an evaluation and reused after; each reuse charges
 * the cost meter what the computation spent, and an error is thrown again, so results, errors and costs
 * are those of computing it each time.
 */
import { counted, spend, work, type Counted } from '../runtime.js';
import type { PlanNode, Step } from './node.js';
import type { Planner, Scope } from './plan.js';

function isNode(x: unknown): x is PlanNode {
  return typeof x === 'object' && x !== null && typeof (x as PlanNode).op === 'string' && 'args' in x;
}

/** The nodes directly below `node` (operands, arguments, list items, map keys and values). */
function children(args: unknown, out: PlanNode[]): PlanNode[] {
  if (isNode(args)) out.push(args);
  else if (Array.isArray(args)) for (const x of args) children(x, out);
  return out;
}

/** Whether `node`'s value depends on the activation only: no bound name, no accumulator, no macro. */
export function invariant(node: PlanNode, bound: ReadonlyMap<string, number>): boolean {
  if (node.meta.macro) return false;
  if (node.meta.alternate) return invariant(node.meta.alternate, bound);
  switch (node.op) {
    case 'value':
      return true;
    case 'id':
      return !bound.has(node.args as string);
    case 'comprehension': case 'accuValue': case 'accuInc': case 'accuPush': case 'accuSet': case 'accuMerge':
      return false;
    default:
      return children(node.args, []).every((n) => invariant(n, bound));
  }
}

/** `step` (a call's) computed once per evaluation when it is invariant inside a binding. */
export function hoisted(p: Planner, node: PlanNode, scope: Scope, step: Step): Step {
  if (!p.pure || scope.vars.size === 0 || !invariant(node, scope.vars)) return step;
  const at = scope.count.n++;
  return (f) => {
    let memo = f.slots[at] as Counted | undefined;
    if (memo === undefined) {
      f.slots[at] = memo = counted(step, f);
    } else {
      if (memo.units > 0) spend(memo.units);
      if (memo.work > 0) work(memo.work);
    }
    if ('error' in memo) throw memo.error;
    return memo.value;
  };
}
