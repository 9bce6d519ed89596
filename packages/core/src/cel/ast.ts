/**
 * Walks a checked cel-js AST once at load time: the free names an expression reads (so the activation
 * holds only those), constant reads of `params.x.y`/`parameters.x.y` (checked against parametersSchema),
 * refused names, and the two places verdict instruments: comprehensions spend the size of their range
 * from the cost meter before iterating, and library functions verdict implements itself (RE2 `matches`,
 * metered string functions) replace cel-js's built-ins at their call sites.
 *
 * The AST shape (`op`, `args`, `meta.alternate` for expanded macros, `handle` set by the checker) is
 * cel-js 8.0.0's; the dependency is pinned exactly and test/cel-*.test.ts fail if it changes.
 */
import { spend } from './runtime.js';
import type { Override } from './lib/index.js';

/** The parts of a cel-js AST node verdict reads. */
export interface Node {
  op: string;
  args: unknown;
  pos: number;
  handle?: (...args: never[]) => unknown;
  readonly meta: { alternate?: Node; macro?: { var?: string; val?: Node; exp?: Node; [field: string]: unknown } };
}

function isNode(x: unknown): x is Node {
  return typeof x === 'object' && x !== null && typeof (x as Node).op === 'string' && 'args' in x;
}

export interface Facts {
  /** Free names read at the root, with the position of their first use. */
  roots: Map<string, number>;
  /** Constant paths read from `params`/`parameters` (the segments after it). */
  parameterReads: string[][];
  /** Functions called by name (global form) with a position. */
  calls: Map<string, number>;
}

const METERED = Symbol('verdict.metered');
const PARAMETER_ROOTS = new Set(['params', 'parameters']);

/** The constant path of a select/index chain rooted at a free name: [root, ...segments]. */
function chain(node: Node, bound: ReadonlySet<string>): string[] | undefined {
  const segs: string[] = [];
  let cur: Node = node;
  for (;;) {
    if (cur.op === '.' || cur.op === '.?') {
      const [inner, field] = cur.args as [Node, string];
      segs.push(field);
      cur = inner;
    } else if (cur.op === '[]' || cur.op === '[?]') {
      const [inner, key] = cur.args as [Node, Node];
      if (key.op !== 'value' || typeof key.args !== 'string') return undefined;
      segs.push(key.args);
      cur = inner;
    } else if (cur.op === 'id' && typeof cur.args === 'string' && !bound.has(cur.args)) {
      segs.push(cur.args);
      return segs.reverse();
    } else return undefined;
  }
}

/** Collects facts and instruments the AST (idempotent: a node is instrumented once). */
export function analyse(root: Node, overrides: ReadonlyMap<string, Override>): Facts {
  const facts: Facts = { roots: new Map(), parameterReads: [], calls: new Map() };
  const seen = new Set<object>();
  const visit = (node: Node, bound: ReadonlySet<string>, inChain: boolean): void => {
    if (seen.has(node) && bound.size === 0) return;
    seen.add(node);
    const alternate = node.meta.alternate;
    if (alternate) return visit(alternate, bound, false);
    const macro = node.meta.macro;
    if (macro) {
      if (macro.var !== undefined && macro.val && macro.exp) {
        visit(macro.val, bound, false);
        visit(macro.exp, new Set([...bound, macro.var]), false);
        return;
      }
      // Other macros (has, orValue, or, …) keep their operands in fields of their own.
      for (const [key, value] of Object.entries(macro)) if (key !== 'ast') visitAll(value, bound);
      return;
    }
    switch (node.op) {
      case 'id': {
        const name = node.args as string;
        if (!bound.has(name) && !facts.roots.has(name)) facts.roots.set(name, node.pos);
        return;
      }
      case 'comprehension': {
        const a = node.args as { iterable: Node; init: Node; step: Node; iterVarName: string; condition?: unknown };
        visit(a.iterable, bound, false);
        visit(a.init, bound, false);
        visit(a.step, new Set([...bound, a.iterVarName]), false);
        meterComprehension(node);
        return;
      }
      case '.': case '.?': case '[]': case '[?]': {
        if (!inChain) {
          const path = chain(node, bound);
          if (path && PARAMETER_ROOTS.has(path[0]!) && path.length > 1) facts.parameterReads.push(path.slice(1));
        }
        const [inner, key] = node.args as [Node, unknown];
        visit(inner, bound, true);
        if (isNode(key)) visit(key, bound, false);
        return;
      }
      case 'call': {
        const [name, args] = node.args as [string, Node[]];
        if (!facts.calls.has(name)) facts.calls.set(name, node.pos);
        visitAll(args, bound);
        override(node, overrides.get(`${name}/${args.length}`), 0);
        return;
      }
      case 'rcall': {
        const [name, receiver, args] = node.args as [string, Node, Node[]];
        visit(receiver, bound, false);
        visitAll(args, bound);
        override(node, overrides.get(`.${name}/${args.length}`), 1);
        return;
      }
      default:
        visitAll(node.args, bound);
    }
  };
  const visitAll = (x: unknown, bound: ReadonlySet<string>): void => {
    if (isNode(x)) visit(x, bound, false);
    else if (Array.isArray(x)) for (const y of x) visitAll(y, bound);
  };
  visit(root, new Set(), false);
  return facts;
}

/** Comprehensions spend the size of their range before iterating (a sound bound: each step runs at most once). */
function meterComprehension(node: Node): void {
  const handle = node.handle as ((items: unknown, ...rest: unknown[]) => unknown) | undefined;
  if (!handle || (handle as { [METERED]?: true })[METERED]) return;
  const metered = (items: unknown, ...rest: unknown[]): unknown => {
    spend(sizeOf(items));
    return handle(items, ...rest);
  };
  (metered as { [METERED]?: true })[METERED] = true;
  node.handle = metered as never;
}

function sizeOf(items: unknown): number {
  if (Array.isArray(items)) return items.length;
  if (items instanceof Map || items instanceof Set) return items.size;
  if (items !== null && typeof items === 'object') return Object.keys(items).length;
  return 1;
}

/**
 * Replaces a call site's handler with verdict's implementation. `receiver` is 1 for methods: cel-js passes
 * `[receiver, ...args]`. When the override declines (returns {@link DECLINE}: another overload applies),
 * cel-js's own handler runs.
 */
function override(node: Node, impl: Override | undefined, receiver: 0 | 1): void {
  const handle = node.handle as ((values: unknown[], ...rest: unknown[]) => unknown) | undefined;
  if (!impl || !handle || (handle as { [METERED]?: true })[METERED]) return;
  void receiver;
  const replaced = (values: unknown[], ...rest: unknown[]): unknown => {
    const out = impl(values);
    return out === DECLINE ? handle(values, ...rest) : out;
  };
  (replaced as { [METERED]?: true })[METERED] = true;
  node.handle = replaced as never;
}

/** Returned by an {@link Override} that does not apply to the argument types it got. */
export const DECLINE: unique symbol = Symbol('verdict.cel.decline');
