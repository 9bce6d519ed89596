/**
 * Walks a checked cel-js AST once at load time: the free names an expression reads (so the activation
 * holds only those), constant reads of `params.x.y`/`parameters.x.y` (checked against parametersSchema),
 * refused names, and the two places verdict instruments: comprehensions charge verdict's work for their range
 * before iterating (the API server's units per step are units.ts's), and library functions verdict implements itself (RE2 `matches`,
 * metered string functions) replace cel-js's built-ins at their call sites.
 *
 * The AST shape (`op`, `args`, `meta.alternate` for expanded macros, `handle` set by the checker) is
 * cel-js 8.0.0's; the dependency is pinned exactly and test/cel-*.test.ts fail if it changes.
 */
import { Optional } from '@marcbachmann/cel-js';
import { work } from './runtime.js';
import type { Override } from './lib/index.js';
import { meteredBinary, meteredCall } from './cost.js';
import { sizeOf } from './plan/loops.js';
import type { CelType } from './plan/node.js';

/** The parts of a cel-js AST node verdict reads. */
export interface Node {
  op: string;
  args: unknown;
  pos: number;
  handle?: (...args: never[]) => unknown;
  readonly meta: { alternate?: Node; macro?: { var?: string; val?: Node; exp?: Node; [field: string]: unknown }; evaluate?: Evaluate };
  setMeta(key: 'evaluate', value: Evaluate): unknown;
}

/** cel-js's evaluation of a node (its `meta.evaluate`). */
type Evaluate = (this: unknown, ev: unknown, ast: unknown, ctx: unknown) => unknown;

/** Whether `x` is an AST node (rather than an argument list, a name or a constant). */
export function isNode(x: unknown): x is Node {
  return typeof x === 'object' && x !== null && typeof (x as Node).op === 'string' && 'args' in x;
}

export interface Facts {
  /** Free names read at the root, with the position of their first use. */
  roots: Map<string, number>;
  /**
   * For each root, the constant paths the expression reads below it (`object.spec.containers` →
   * ['spec', 'containers']), or `'whole'` when the root is also used as a value of its own.
   */
  paths: Map<string, string[][] | 'whole'>;
  /** Constant paths read from `params`/`parameters` (the segments after it). */
  parameterReads: string[][];
  /** Functions called by name (global form), and methods called on a free name (`image.GetMetadata`), with a position. */
  calls: Map<string, number>;
  /**
   * Roots used only as the expression's result (`cond ? oldObject : object`) or compared with `null`:
   * nothing in the expression depends on their conversion, so they can be handed over unconverted.
   */
  passed: Set<string>;
  /** Constant regular expressions given to `matches`, `find` or `findAll`, with their position (checked at load). */
  patterns: { pattern: string; pos: number }[];
}

/** Regex functions by call form (`name/arity`, `.name/arity` for methods) and the argument holding the pattern. */
const PATTERN_ARGUMENT: ReadonlyMap<string, number> = new Map([
  ['matches/2', 1], ['.matches/1', 0], ['.find/1', 0], ['.findAll/1', 0], ['.findAll/2', 0],
]);

const METERED = Symbol('verdict.metered');
const PARAMETER_ROOTS = new Set(['params', 'parameters']);

/**
 * Names bound inside an expression (comprehension and cel.bind variables). A variable bound to the
 * elements of a constant path (`object.spec.containers.all(c, …)`) is an alias: reads through it are
 * paths below the root (`object`, ['spec', 'containers', '*', …]); other bound names read nothing from it.
 */
type Bound = ReadonlyMap<string, readonly string[] | null>;

/** The path of a select/index chain with constant keys, resolved through aliases: [root, ...segments]. */
function chain(node: Node, bound: Bound): string[] | undefined {
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
    } else if (cur.op === 'id' && typeof cur.args === 'string') {
      const alias = bound.get(cur.args);
      if (alias === null) return undefined;
      segs.push(...[...(alias ?? [cur.args])].reverse());
      return segs.reverse();
    } else return undefined;
  }
}

/**
 * Collects facts and instruments the AST (idempotent: a node is instrumented once). `unchecked`: the
 * expression was not type-checked (unchecked.ts), so verdict's implementations run only where cel-js finds an
 * overload for the run-time types.
 */
export function analyse(root: Node, overrides: ReadonlyMap<string, Override>, unchecked = false): Facts {
  const facts: Facts = { roots: new Map(), paths: new Map(), parameterReads: [], calls: new Map(), patterns: [], passed: new Set() };
  const converted = new Set<string>();
  const constantPattern = (form: string, args: readonly Node[]): void => {
    const arg = args[PATTERN_ARGUMENT.get(form) ?? -1];
    if (arg?.op === 'value' && typeof arg.args === 'string') facts.patterns.push({ pattern: arg.args, pos: arg.pos });
  };
  const usePath = (path: readonly string[] | 'whole-root', name?: string): void => {
    const rootName = path === 'whole-root' ? name! : path[0]!;
    const segments = path === 'whole-root' ? 'whole' : path.slice(1);
    const known = facts.paths.get(rootName);
    if (known === 'whole') return;
    if (segments === 'whole' || (segments.length === 0)) facts.paths.set(rootName, 'whole');
    else if (known) known.push(segments);
    else facts.paths.set(rootName, [segments]);
  };
  const bindTo = (bound: Bound, name: string, range: Node | undefined, element: boolean): Bound => {
    const path = range ? chain(range, bound) : undefined;
    const next = new Map(bound);
    next.set(name, path ? (element ? [...path, '*'] : path) : null);
    return next;
  };
  /** `passing`: the node's value is the expression's result, or is only compared with null. */
  const visit = (node: Node, bound: Bound, inChain: boolean, passing = false): void => {
    const alternate = node.meta.alternate;
    if (alternate) return visit(alternate, bound, false);
    const macro = node.meta.macro;
    if (macro) {
      if (macro.var !== undefined && macro.val && macro.exp) {
        visit(macro.val, bound, false);
        visit(macro.exp, bindTo(bound, macro.var, macro.val, false), false);
        return;
      }
      if (macro['functionDesc'] === 'optional.orValue(value)') orValueOverride(macro, overrides.get('.orValue/1'));
      // Other macros (has, orValue, or, …) keep their operands in fields of their own.
      // (`ast` is the call itself; `macroHasProps` is has()'s own flattening of its argument.)
      for (const [key, value] of Object.entries(macro)) if (key !== 'ast' && key !== 'macroHasProps') visitAll(value, bound);
      return;
    }
    switch (node.op) {
      case 'id': {
        const name = node.args as string;
        const alias = bound.get(name);
        if (alias === null) return;
        if (alias) {
          if (!inChain) usePath(alias);
          return;
        }
        if (!facts.roots.has(name)) facts.roots.set(name, node.pos);
        if (!inChain) usePath('whole-root', name);
        (passing && !inChain ? facts.passed : converted).add(name);
        return;
      }
      case '?:': {
        const [test, yes, no] = node.args as [Node, Node, Node];
        visit(test, bound, false);
        visit(yes, bound, false, passing);
        visit(no, bound, false, passing);
        return;
      }
      case '==': case '!=': {
        const [left, right] = node.args as [Node, Node];
        const isNull = (n: Node) => n.op === 'value' && n.args === null;
        visit(left, bound, false, isNull(right));
        visit(right, bound, false, isNull(left));
        meterOperator(node);
        return;
      }
      case 'in': {
        const [left, right] = node.args as [Node, Node];
        visit(left, bound, false);
        // The container `in` reads is given unconverted (its path ends in ''): a map's keys are the same either
        // way (a hash lookup, never a conversion of the whole map), and a list's elements compare by CEL equality,
        // which holds between an int and the same integral double (cost.ts's `in` converts a lone number).
        const range = chain(right, bound);
        if (range) {
          usePath([...range, '']);
          visit(right, bound, true);
        } else visit(right, bound, false);
        meterOperator(node);
        return;
      }
      case '+': case '<': case '<=': case '>': case '>=':
        visitAll(node.args, bound);
        meterOperator(node);
        return;
      case 'comprehension': {
        const a = node.args as { iterable: Node; init: Node; step: Node; iterVarName: string; iterVar2Name?: string };
        if (a.iterVar2Name !== undefined) {
          // Two variables (index or key, element or value): the range is read whole, its variables read nothing more of it.
          visit(a.iterable, bound, false);
          visit(a.init, bound, false);
          visit(a.step, bindTo(bindTo(bound, a.iterVarName, undefined, false), a.iterVar2Name, undefined, false), false);
          meterComprehension(node);
          return;
        }
        const range = chain(a.iterable, bound);
        if (range) {
          // The range is read as a container: its elements only where the step reads them.
          usePath([...range, '*', '']);
          visit(a.iterable, bound, true);
        } else visit(a.iterable, bound, false);
        visit(a.init, bound, false);
        visit(a.step, bindTo(bound, a.iterVarName, a.iterable, true), false);
        meterComprehension(node);
        return;
      }
      case '.': case '.?': case '[]': case '[?]': {
        const path = inChain ? undefined : chain(node, bound);
        if (path) {
          if (PARAMETER_ROOTS.has(path[0]!) && path.length > 1 && !bound.has(path[0]!)) facts.parameterReads.push(path.slice(1));
          usePath(path);
        }
        const [inner, key] = node.args as [Node, unknown];
        // Inside a constant chain the inner nodes are part of it; below a dynamic step they start their own.
        visit(inner, bound, inChain || path !== undefined);
        if (isNode(key)) visit(key, bound, false);
        return;
      }
      case 'call': {
        const [name, args] = node.args as [string, Node[]];
        if (!facts.calls.has(name)) facts.calls.set(name, node.pos);
        visitAll(args, bound);
        constantPattern(`${name}/${args.length}`, args);
        const impl = overrides.get(`${name}/${args.length}`);
        if (impl) override(node, impl, unchecked);
        else meterCall(node, name);
        return;
      }
      case 'rcall': {
        const [name, receiver, args] = node.args as [string, Node, Node[]];
        // `ns.fn(…)` on a free name: a namespaced function (refusable by its qualified name).
        if (receiver.op === 'id' && typeof receiver.args === 'string' && !bound.has(receiver.args)) {
          const qualified = `${receiver.args}.${name}`;
          if (!facts.calls.has(qualified)) facts.calls.set(qualified, node.pos);
        }
        visit(receiver, bound, false);
        visitAll(args, bound);
        constantPattern(`.${name}/${args.length}`, args);
        const impl = overrides.get(`.${name}/${args.length}`);
        if (impl) override(node, impl, unchecked);
        // A namespaced function (`sets.contains`) is not the built-in method of the same name.
        else if (!isNamespace(receiver)) meterCall(node, name);
        return;
      }
      default:
        visitAll(node.args, bound);
    }
  };
  const visitAll = (x: unknown, bound: Bound): void => {
    if (isNode(x)) visit(x, bound, false);
    else if (Array.isArray(x)) for (const y of x) visitAll(y, bound);
  };
  visit(root, new Map(), false, true);
  for (const name of converted) facts.passed.delete(name);
  return facts;
}

type MacroEvaluate = (ev: { run(node: unknown, ctx: unknown): unknown }, macro: Record<string, unknown>, ctx: unknown) => unknown;

/**
 * `x.orValue(y)` is a cel-js macro, not a call: an override of `.orValue/1` (e.g. Kyverno's compatibility
 * rule) decides for a receiver that is not optional (it gets `[receiver]`); optionals keep CEL's meaning.
 */
function orValueOverride(macro: Record<string, unknown>, impl: Override | undefined): void {
  const original = macro['evaluate'] as MacroEvaluate | undefined;
  if (!impl || !original || OVERRIDDEN.has(macro)) return;
  const evaluate: MacroEvaluate = (ev, m, ctx) => {
    const value = ev.run(m['receiver'], ctx);
    if (value instanceof Optional) return value.hasValue() ? value.value() : ev.run(m['arg'], ctx);
    const out = impl([value]);
    return out === DECLINE ? original(ev, m, ctx) : out;
  };
  macro['evaluate'] = evaluate;
  OVERRIDDEN.add(macro);
}

/** Macros whose evaluation was replaced (analysis runs once per compiled expression, but stays idempotent). */
const OVERRIDDEN = new WeakSet<object>();

/** A namespace used as a call's receiver (`sets.contains`, `optional.none`): cel-js puts a constant in for the name. */
export function isNamespace(node: Node): boolean {
  return node.op === 'id' && typeof node.args === 'string' && node.meta.alternate?.op === 'value';
}

/** An operator whose work grows with its operands gets a handler that charges for it (cost.ts). */
function meterOperator(node: Node): void {
  const handle = node.handle as Parameters<typeof meteredBinary>[1] | undefined;
  if (!handle) return;
  const args = node.args as [Node & { checkedType?: CelType }, Node & { checkedType?: CelType }];
  const metered = meteredBinary(node.op, handle, [args[0].checkedType, args[1].checkedType]);
  if (metered) node.handle = metered as never;
}

/** A built-in function whose work grows with its input gets a handler that charges for it (cost.ts). */
function meterCall(node: Node, name: string): void {
  const handle = node.handle as Parameters<typeof meteredCall>[1] | undefined;
  if (!handle) return;
  const metered = meteredCall(name, handle);
  if (metered) node.handle = metered as never;
}

/**
 * Comprehensions charge verdict's work for their range before iterating (listing a map's keys, pairing a list's
 * elements with their indexes); the API server's units are charged per step (units.ts).
 */
function meterComprehension(node: Node): void {
  const handle = node.handle as ((items: unknown, ...rest: unknown[]) => unknown) | undefined;
  if (!handle || (handle as { [METERED]?: true })[METERED]) return;
  const metered = (items: unknown, ...rest: unknown[]): unknown => {
    work(sizeOf(items));
    return handle(items, ...rest);
  };
  (metered as { [METERED]?: true })[METERED] = true;
  node.handle = metered as never;
}


/**
 * Replaces a call site's handler with verdict's implementation (cel-js passes `[receiver, ...args]` for a
 * method). When the override declines (returns {@link DECLINE}: another overload applies), cel-js's own
 * handler runs; so it does, in an unchecked expression, when no overload takes the run-time types (it
 * raises cel-js's "no matching overload").
 */
function override(node: Node, impl: Override | undefined, unchecked: boolean): void {
  const handle = node.handle as ((values: unknown[], ...rest: unknown[]) => unknown) | undefined;
  if (!impl || !handle || (handle as { [METERED]?: true })[METERED]) return;
  const replaced = (values: unknown[], ...rest: unknown[]): unknown => {
    if (unchecked && !overloadFor(node, values, rest)) return handle(values, ...rest);
    const out = impl(values);
    return out === DECLINE ? handle(values, ...rest) : out;
  };
  (replaced as { [METERED]?: true })[METERED] = true;
  node.handle = replaced as never;
}

interface Evaluator { debugRuntimeType(value: unknown, checked: unknown): unknown }
interface CallNode { candidates?: { findFunction(types: unknown[], receiver?: unknown): unknown } }

/** Whether one of the call's overloads takes the run-time types of `values` (cel-js's own dispatch rule). */
function overloadFor(node: Node, values: readonly unknown[], rest: readonly unknown[]): boolean {
  const ev = rest.find((x): x is Evaluator => typeof (x as Evaluator | null)?.debugRuntimeType === 'function');
  const candidates = (node as CallNode).candidates;
  if (!ev || !candidates) return true;
  const types = values.map((v) => ev.debugRuntimeType(v, undefined));
  return Boolean(node.op === 'rcall' ? candidates.findFunction(types.slice(1), types[0]) : candidates.findFunction(types));
}

/** Returned by an {@link Override} that does not apply to the argument types it got. */
export const DECLINE: unique symbol = Symbol('verdict.cel.decline');
