/**
 * Qualified variable names (`a.b` declared as one variable), resolved as cel-go's checker resolves them:
 * a select chain `a.b.c` whose root is an identifier reads the longest declared name among `a.b.c`, `a.b`
 * and `a`, and selects the rest as fields (checker.go `checkSelect`: "try to interpret as qualified name"
 * before field selection; env.LookupIdent does not consult comprehension variables for a dotted name, so
 * neither does this). Kubernetes declares no dotted names; cel-spec's conformance tests and tools that
 * declare such variables do.
 *
 * The rewrite happens once, after parsing and before checking: the node of the longest declared prefix
 * becomes an identifier node of that name, so cel-js's checker and evaluator, and verdict's planner and
 * analysis, see one variable named `a.b`.
 */
import { isNode, type Node } from './ast.js';

interface Rewritable extends Node {
  check?: (...args: never[]) => unknown;
  evaluate?: (...args: never[]) => unknown;
}

/** The dotted names of `names` (a set of declared variable names), or undefined when there are none. */
export function dottedNames(names: readonly string[] | undefined): ReadonlySet<string> | undefined {
  const dotted = names?.filter((n) => n.includes('.'));
  return dotted && dotted.length > 0 ? new Set(dotted) : undefined;
}

/** The select nodes of `a.b.c` from the outermost inwards, the names from the root on, and the root identifier, or undefined. */
function selectChain(node: Node): { selects: Node[]; names: string[]; root: Node } | undefined {
  const selects: Node[] = [];
  const names: string[] = [];
  let cur = node;
  while (cur.op === '.') {
    const [inner, field] = cur.args as [Node, string];
    selects.push(cur);
    names.push(field);
    cur = inner;
  }
  if (cur.op !== 'id' || typeof cur.args !== 'string' || selects.length === 0) return undefined;
  names.push(cur.args);
  return { selects, names: names.reverse(), root: cur };
}

/**
 * Rewrites every select chain of `root` whose qualified prefix is a declared dotted name into a read of that
 * variable. Iterative (an explicit stack): the AST's depth is bounded by cel-js's parser limits, but the walk
 * does not depend on the JavaScript stack.
 */
export function resolveQualifiedNames(root: Node, declared: ReadonlySet<string>): void {
  const stack: unknown[] = [root];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const x = stack.pop();
    if (Array.isArray(x)) {
      for (const y of x) stack.push(y);
      continue;
    }
    if (!isNode(x) || seen.has(x)) continue;
    seen.add(x);
    const chain = x.op === '.' ? selectChain(x) : undefined;
    if (chain) {
      // names = [a, b, c]; selects = [node of a.b.c, node of a.b]: the prefix of k+1 names is selects[names.length - 1 - k].
      let resolved = false;
      for (let k = chain.names.length - 1; k >= 1 && !resolved; k--) {
        const name = chain.names.slice(0, k + 1).join('.');
        if (!declared.has(name)) continue;
        asIdentifier(chain.selects[chain.names.length - 1 - k] as Rewritable, name, chain.root);
        resolved = true;
      }
      if (resolved) continue;
    }
    const macro = x.meta.macro;
    if (macro) for (const [key, value] of Object.entries(macro)) if (key !== 'ast') stack.push(value);
    stack.push(x.args);
  }
}

/** Turns `node` (a select) into an identifier node named `name`, with the identifier operator of `leaf`. */
function asIdentifier(node: Rewritable, name: string, leaf: Node): void {
  const op = leaf.meta as unknown as { check: (chk: unknown, ast: unknown, ctx: unknown) => unknown; evaluate: (ev: unknown, ast: unknown, ctx: unknown) => unknown };
  node.op = 'id';
  node.args = name;
  node.check = ((chk: unknown, ast: unknown, ctx: unknown) => op.check(chk, ast, ctx)) as never;
  node.evaluate = ((ev: unknown, ast: unknown, ctx: unknown) => op.evaluate(ev, ast, ctx)) as never;
}
