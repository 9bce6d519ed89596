/**
 * cel-spec's unchecked mode (cel-go without `Check`, the conformance tests' `disable_check`): the expression
 * is not type-checked, every value is typed when it is computed, and what the checker would refuse becomes an
 * evaluation error of the sub-expression (which `||`, `&&` and `?:` may then absorb, as cel-go's runtime does).
 * `1.0 == 1` is true (runtime equality is numeric across int, uint and double), `false && 32` is false,
 * `f_unknown(17) || true` is true.
 *
 * Kubernetes always type-checks, so verdict's default is checked; this mode exists for cel-spec's tests and
 * for tools that evaluate CEL as cel-go's unchecked programs do. It runs on cel-js's evaluator (the planner
 * needs checked types).
 *
 * How: cel-js checks a parsed expression once before evaluating it, node by node through its checker's
 * `check(node, ctx)`. The root node's check is replaced by one that hands every node a checker whose `check`
 * gives `dyn` for each node (so operators and functions dispatch on the run-time types of their operands)
 * and turns a node's check error into that node's evaluation error.
 */
import type { Node } from './ast.js';

interface Checker {
  check(node: CheckedNode, ctx: unknown): unknown;
  readonly dynType: unknown;
}

interface CheckedNode extends Node {
  checkedType?: unknown;
  check(chk: Checker, node: CheckedNode, ctx: unknown): unknown;
  evaluate: (ev: unknown, node: CheckedNode, ctx: unknown) => unknown;
}

/** Makes `root` (a parsed cel-js AST, not yet checked) check and evaluate as an unchecked program. */
export function uncheck(root: Node): void {
  const node = root as CheckedNode;
  const check = node.check; // its own (a rewritten qualified name, qualified.ts) or its operator's
  node.check = (chk, self, ctx) => {
    const lenient: Checker = Object.create(chk as object) as Checker;
    lenient.check = (n, c) => {
      if (n.checkedType !== undefined) return n.checkedType;
      try {
        (n === node ? check : n.check).call(n, lenient, n, c);
      } catch (error) {
        n.evaluate = () => {
          throw error;
        };
      }
      return (n.checkedType = chk.dynType);
    };
    return lenient.check(self, ctx);
  };
}
