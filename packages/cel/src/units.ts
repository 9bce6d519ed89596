/**
 * The API server's cost units, charged node by node. The API server counts a CEL expression's cost with
 * cel-go's runtime cost tracker (interpreter/runtimecost.go) and Kubernetes' library costs
 * (k8s.io/apiserver/pkg/cel/library/cost.go), and cancels an expression past 1,000,000 units and a policy's
 * validations past 10,000,000. verdict charges the same units, so that it cancels what the API server cancels.
 *
 * cel-go observes every node it evaluates: an identifier or a field selection costs 1, a call 1 unless its
 * function's cost grows with its arguments (those charge themselves as they run: cost.ts for cel-js's operators
 * and built-ins, lib/costed.ts for the libraries), a list literal 10, a map literal 30, a constant, `&&`, `||`
 * and `?:` nothing. Macros are comprehensions over an accumulator, whose steps cel-go observes too: `all()`
 * costs per element 2 for its loop condition (`@not_strictly_false(__result__)`) and 1 for reading
 * `__result__` in its step (`__result__ && p`), `exists()` 3 and 1, `map()` 12 per element added
 * (`__result__ + [f]`), and every comprehension 1 for its result.
 *
 * Work that does not depend on the data is known at load time, so it is summed here per *block*: a part of
 * the expression that is evaluated whole once it is entered. The expression, the right operand of `&&` and
 * `||`, each branch of `?:` and a comprehension's step start a block; everything else is in its enclosing
 * block, and a block's units are spent once when it is entered ({@link chargeOf}: the planner, the generated
 * code and cel-js's own evaluation all spend them at the block's first node). Only the sizes of values are
 * charged as the expression runs (strings compared, lists searched).
 *
 * Details of cel-go's tracker followed here: a field selection or index on something that is not itself a
 * selection chain (a call's result, a literal) costs 1 more (cel-go wraps the operand in a relative attribute);
 * an identifier that is a `?:` branch or an index is read without being observed (cel-go resolves it as an
 * attribute), so it costs nothing there; `has()` costs its field selections and, in the API server, nothing for the
 * test itself (`PresenceTestHasCost(false)`); a qualifier of an optional selection (`.?`, `[?]` and what follows
 * them in the chain) costs 1 only when the value is there (cel-go qualifies it with `QualifyIfPresent`); `or()` and
 * `orValue()` cost nothing and evaluate their argument only when the receiver has no value (cel-go replaces them
 * with interpretables its tracker does not charge); a qualified name the environment defines (`google.protobuf.Duration`)
 * is a constant. With cel-go's `OptOptimize`, which the API server sets, a list or
 * map literal of constants and a type conversion of a constant are computed once when the program is built and
 * cost nothing, and `x in [constants]` is a set lookup that costs nothing either.
 */
import { chargesItself, chargeWhenPresent, freeSetLookup, unmeter } from './cost.js';
import { spend } from './runtime.js';
import { isNamespace, type Node } from './ast.js';

/** How the API server's program is built (environment/base.go), which changes its units. */
export interface UnitModel {
  /** cel-go's `OptOptimize`: constant literals and conversions computed once, free (the API server: true). */
  readonly folded: boolean;
  /** Whether `has()` costs its unit (cel-go's default; the API server: false). */
  readonly presenceCost: boolean;
  /**
   * `dyn({…})` stands for an object construction (MutatingAdmissionPolicy's `Object{…}` and `JSONPatch{…}`, which
   * verdict rewrites to map literals): cel-go's `StructCreateBaseCost` (40) and its fields, never folded.
   */
  readonly constructions?: boolean;
}

/** The API server's model. Kubernetes' own cost_test.go runs without `OptOptimize` and with presence costs. */
export const API_SERVER_UNITS: UnitModel = { folded: true, presenceCost: false };

/** What the model needs of the environment: whether a call charges itself (its function's cost grows with its input). */
export interface UnitContext {
  readonly model: UnitModel;
  /** The expression's text, where its nodes' positions point (to tell `!!x` from `!(!x)`; without it, each `!` is a call). */
  readonly source?: string;
  /** Whether a call of this function (`name`, `ns.name` for a namespaced one) charges its own cost as it runs. */
  costed(name: string, node: Node): boolean;
}

/** cel-go's `common.ListCreateBaseCost` and `MapCreateBaseCost`: a list or map literal built. */
const LIST_CREATE = 10;
const MAP_CREATE = 30;
/** cel-go's `common.StructCreateBaseCost`: an object constructed. */
const STRUCT_CREATE = 40;

/** Units spent when a block starts at a node (see the module's comment), by node. */
const CHARGES = new WeakMap<object, number>();

/** The units to spend when evaluation enters `node`, or 0 (no block starts there, or it costs nothing). */
export function chargeOf(node: object): number {
  return CHARGES.get(node) ?? 0;
}

/** Type conversions cel-go folds when their argument is a constant (`overloads.IsTypeConversionFunction`). */
const CONVERSIONS = new Set(['bool', 'bytes', 'double', 'duration', 'dyn', 'int', 'string', 'timestamp', 'type', 'uint']);

const BINARY = new Set(['==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', 'in']);

type ComprehensionArgs = {
  iterable: Node;
  init: Node;
  step: Node;
  kind?: string;
  errorsAreFatal?: boolean;
  iterVar2Name?: string;
  condition?: (accu: unknown) => boolean;
  result: (accu: unknown) => unknown;
};

const WRAPPED = Symbol('verdict.units');

/**
 * Computes the units of every block of the checked expression at `root` and records them ({@link chargeOf});
 * wraps comprehensions' loop conditions and results, which cel-go charges per element and once. Idempotent.
 */
export function assignUnits(root: Node, context: UnitContext): void {
  if (CHARGES.has(root)) return;
  const { folded, presenceCost } = context.model;
  /** Nodes whose value is a constant once cel-go's optimizer has run. */
  const constant = new WeakSet<Node>();

  const block = (node: Node, extra = 0): void => {
    setCharge(node, cost(node) + extra);
  };
  /** A `?:` branch or an index: an identifier there is an attribute cel-go resolves without observing it. */
  const resolved = (node: Node): number => cost(node) - (rootedAtIdentifier(node) ? 1 : 0);

  /** The units of `node`'s part that is evaluated whenever `node` is (blocks below it recorded apart). */
  function cost(node: Node): number {
    const alternate = node.meta.alternate;
    if (alternate) {
      const units = cost(alternate);
      if (constant.has(alternate)) constant.add(node);
      return units;
    }
    const macro = node.meta.macro;
    if (macro) return macroCost(node, macro);
    const op = node.op;
    switch (op) {
      case 'value':
        constant.add(node);
        return 0;
      case 'id': case 'accuValue':
        return 1;
      case 'accuInc':
        // `__result__ + 1`
        return 2;
      case 'accuPush':
        // `__result__ + [e]`: the accumulator, a one-element list, the `+`.
        return 2 + LIST_CREATE + cost(node.args as Node);
      case 'accuSet': {
        // `cel.@mapInsert(__result__, k, v)`
        const [k, v] = node.args as [Node, Node];
        return 2 + cost(k) + cost(v);
      }
      case 'accuMerge':
        return 2 + cost(node.args as Node);
      case '.': case '.?': {
        const inner = (node.args as [Node, string])[0];
        const units = cost(inner);
        if (op === '.' && constant.has(inner) && isQualifiedName(inner)) {
          // `google.protobuf.Duration`: cel-go's checker resolves a qualified name the environment defines to one
          // identifier (checker/checker.go checkSelect), planned as a constant (interpreter/planner.go
          // planCheckedIdent): free.
          constant.add(node);
          return units;
        }
        return units + qualifier(node) + (isAttribute(inner) ? 0 : 1);
      }
      case '[]': case '[?]': {
        const [inner, index] = node.args as [Node, Node];
        return cost(inner) + qualifier(node) + (isAttribute(inner) ? 0 : 1) + resolved(index);
      }
      case '!_':
        return prefixRun(node);
      case '-_': {
        const operand = node.args as Node;
        // `-1` is one literal for cel-go's parser.
        if (operand.op === 'value' && !operand.meta.alternate && (typeof operand.args === 'number' || typeof operand.args === 'bigint')) {
          constant.add(node);
          return 0;
        }
        return prefixRun(node);
      }
      case '&&': case '||': {
        const [left, right] = node.args as [Node, Node];
        block(right);
        return cost(left);
      }
      case '?:': {
        const [test, yes, no] = node.args as [Node, Node, Node];
        setCharge(yes, resolved(yes));
        setCharge(no, resolved(no));
        return cost(test);
      }
      case 'list': case 'map':
        return literalCost(node);
      case 'call': case 'rcall':
        return callCost(node);
      case 'comprehension':
        return comprehensionCost(node);
      default: {
        if (BINARY.has(op)) {
          const [left, right] = node.args as [Node, Node];
          const units = cost(left) + cost(right);
          if (op === 'in' && folded && constant.has(right) && right.op === 'list' && (right.args as Node[]).every(isPrimitiveConstant)) {
            // A set lookup once cel-go's optimizer has run: the call itself costs nothing (`x in []` is the constant false).
            freeSetLookup(node);
            return (right.args as Node[]).length === 0 ? 0 : units;
          }
          return units + (chargesItself(node.handle) ? 0 : 1);
        }
        return sumChildren(node.args);
      }
    }
  }

  /**
   * `!x` or `-x`. cel-go's parser reads a run of one prefix operator as one (parser/parser.go VisitLogicalNot,
   * VisitNegate): an even number of them is the operand alone, an odd number one call. A run is operators with only
   * spaces or comments between them (`!!x`, `- -x`; `!(!x)` is two calls).
   */
  function prefixRun(node: Node): number {
    let last = node;
    let count = 1;
    for (;;) {
      const inner = last.args as Node;
      if (inner.op !== node.op || inner.meta.alternate || inner.meta.macro || !adjacent(context.source, last, inner)) break;
      last = inner;
      count++;
    }
    const operand = last.args as Node;
    const units = cost(operand);
    if (count % 2 === 1) return 1 + units;
    if (constant.has(operand)) constant.add(node);
    return units;
  }

  /** A qualifier's unit: 1, or nothing here when it is optional and charges itself if present ({@link chargeWhenPresent}). */
  function qualifier(node: Node): number {
    if (!optionalQualifier(node)) return 1;
    chargeWhenPresent(node);
    return 0;
  }

  function sumChildren(args: unknown): number {
    if (isNode(args)) return cost(args);
    if (!Array.isArray(args)) return 0;
    let units = 0;
    for (const x of args) units += sumChildren(x);
    return units;
  }

  function literalCost(node: Node): number {
    let units = 0;
    let constants = true;
    const items: Node[] = [];
    collect(node.args, items);
    for (const item of items) {
      units += cost(item);
      if (!constant.has(item)) constants = false;
    }
    if (folded && constants) {
      constant.add(node);
      return units;
    }
    return units + (node.op === 'list' ? LIST_CREATE : MAP_CREATE);
  }

  function callCost(node: Node): number {
    const [name, first, second] = node.args as [string, Node | Node[], Node[] | undefined];
    const receiver = node.op === 'rcall' ? (first as Node) : undefined;
    const args = (node.op === 'rcall' ? second : first) as Node[];
    if (context.model.constructions && name === 'dyn' && !receiver && args.length === 1 && args[0]!.op === 'map' && !args[0]!.meta.alternate) {
      // An object construction (the model's comment): its fields, and the object.
      return sumChildren(args[0]!.args) + STRUCT_CREATE;
    }
    const namespace = receiver && isNamespace(receiver) ? namespaceName(receiver) : undefined;
    let units = receiver && namespace === undefined ? cost(receiver) : 0;
    for (const arg of args) units += cost(arg);
    const qualified = namespace === undefined ? name : `${namespace}.${name}`;
    if (folded && !receiver && CONVERSIONS.has(name) && args.length === 1 && constant.has(args[0]!)) {
      // Computed once when cel-go builds the program (its OptOptimize): free, and a constant.
      unmeter(node);
      constant.add(node);
      return units;
    }
    return units + (context.costed(qualified, node) ? 0 : 1);
  }

  function comprehensionCost(node: Node): number {
    const a = node.args as ComprehensionArgs;
    let units = cost(a.init);
    let condition = 0;
    let stepExtra = 0;
    let result = 1;
    if (a.kind === 'quantifier') {
      const init = a.init.args;
      if (init === true) [condition, stepExtra] = [2, 1];
      else if (init === false) [condition, stepExtra] = [3, 1];
      else result = 2; // exists_one: `__result__ == 1`
    } else if (isBinding(a)) {
      // optMap/optFlatMap: cel-go binds the value with a comprehension over an empty list, whose result is the
      // expression (cel-js ranges over a one-element list instead, whose element is the value).
      const item = (a.iterable.args as Node[])[0]!;
      units += cost(item) + (folded ? 0 : LIST_CREATE);
      result = 0;
      block(a.step);
      wrap(a, 0, 0);
      return units;
    }
    units += cost(a.iterable);
    block(a.step, stepExtra);
    wrap(a, condition, result);
    return units;
  }

  function macroCost(node: Node, macro: Readonly<Record<string, unknown>>): number {
    const props = macro['macroHasProps'];
    if (Array.isArray(props)) {
      // has(a.b.c): the field selections and, unless the API server's option, the test; the root resolved as an attribute.
      const root = props[props.length - 1] as Node;
      return resolved(root) + (props.length - 1) + (presenceCost ? 1 : 0);
    }
    if (typeof macro['var'] === 'string' && isNode(macro['val']) && isNode(macro['exp'])) {
      // cel.bind(x, v, e): a comprehension over an empty list literal, accumulating v, with result e.
      return (folded ? 0 : LIST_CREATE) + cost(macro['val']) + cost(macro['exp']);
    }
    if (isNode(macro['receiver']) && isNode(macro['arg'])) {
      // `or`, `orValue`: cel-go's optional library replaces the call with evalOptionalOr / evalOptionalOrValue
      // (cel/library.go decorateOptionalOr), which its tracker has no case for (runtimecost.go Observe): the call
      // costs nothing, and the argument, evaluated only when the receiver has no value, is a block of its own.
      block(macro['arg']);
      return cost(macro['receiver']);
    }
    let units = 1;
    for (const [key, value] of Object.entries(macro)) if (key !== 'ast' && isNode(value)) units += cost(value);
    return units;
  }

  block(root);
  if (!CHARGES.has(root)) CHARGES.set(root, 0);
}

/** A constant of a type cel-go's optimizer puts in a set (bool, int, uint, double, string; not bytes). */
function isPrimitiveConstant(node: Node): boolean {
  const n = node.op === '-_' ? (node.args as Node) : node;
  const v = n.op === 'value' && !n.meta.alternate ? n.args : undefined;
  return typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'bigint' || (typeof v === 'object' && v !== null && v.constructor.name === 'UnsignedInt');
}

/**
 * Records that entering `node` spends `units`, and makes cel-js's own evaluation of the node spend them (the
 * planner and the generated code read {@link chargeOf}). cel-js evaluates a node through its `evaluate` method,
 * which resolves the node's alternate, macro or operator; the wrapper does the same after spending.
 */
function setCharge(node: Node, units: number): void {
  if (units <= 0 || CHARGES.has(node)) return;
  CHARGES.set(node, units);
  type Evaluate = (this: Node, ev: unknown, ast: unknown, ctx: unknown) => unknown;
  const target = node as Node & { evaluate: Evaluate };
  // An evaluation verdict installed on the node itself (unchecked.ts, qualified.ts) is kept; otherwise the node's
  // alternate, macro or operator is evaluated, as cel-js's own `evaluate` resolves it.
  const own = Object.hasOwn(node, 'evaluate') ? target.evaluate : undefined;
  target.evaluate = function charged(ev: unknown, ast: unknown, ctx: unknown): unknown {
    spend(units);
    if (own) return own.call(node, ev, ast, ctx);
    const meta = node.meta as Node['meta'] & { evaluate: Evaluate };
    const alternate = meta.alternate as (Node & { evaluate: Evaluate }) | undefined;
    if (alternate) return alternate.evaluate(ev, alternate, ctx);
    const macro = meta.macro as { evaluate: (ev: unknown, macro: unknown, ctx: unknown) => unknown } | undefined;
    if (macro) return macro.evaluate(ev, macro, ctx);
    return meta.evaluate.call(node, ev, ast, ctx);
  };
}

/** cel-js's optMap/optFlatMap expansion (patches/): a comprehension over `[value]`, its accumulator `null`, never read. */
function isBinding(a: ComprehensionArgs): boolean {
  return a.kind === undefined && a.init.op === 'value' && a.init.args === null && a.iterable.op === 'list' && Array.isArray(a.iterable.args) && a.iterable.args.length === 1;
}

/** The comprehension's loop condition charged on each call, its result once (both shared by the planner and cel-js). */
function wrap(a: ComprehensionArgs, condition: number, result: number): void {
  const cond = a.condition;
  if (cond && condition > 0 && !(cond as { [WRAPPED]?: true })[WRAPPED]) {
    const wrapped = (accu: unknown): boolean => {
      spend(condition);
      return cond(accu);
    };
    (wrapped as { [WRAPPED]?: true })[WRAPPED] = true;
    a.condition = wrapped;
  }
  const res = a.result;
  if (result > 0 && !(res as { [WRAPPED]?: true })[WRAPPED]) {
    const wrapped = (accu: unknown): unknown => {
      spend(result);
      return res(accu);
    };
    (wrapped as { [WRAPPED]?: true })[WRAPPED] = true;
    a.result = wrapped;
  }
}

/** Whether only spaces and `//` comments stand between the one-character operators of `outer` and `inner`. */
function adjacent(source: string | undefined, outer: Node, inner: Node): boolean {
  if (source === undefined || !(inner.pos > outer.pos) || source[inner.pos] !== source[outer.pos]) return false;
  const between = source.slice(outer.pos + 1, inner.pos);
  return /^(?:\s|\/\/[^\n]*(?:\n|$))*$/.test(between);
}

function isNode(x: unknown): x is Node {
  return typeof x === 'object' && x !== null && typeof (x as Node).op === 'string' && 'args' in x;
}

function collect(args: unknown, out: Node[]): void {
  if (isNode(args)) out.push(args);
  else if (Array.isArray(args)) for (const x of args) collect(x, out);
}

function namespaceName(node: Node): string {
  return node.args as string;
}

/** An attribute in cel-go's sense: an identifier, a selection or index chain, a `?:`, a `has()`. */
function isAttribute(node: Node): boolean {
  const n = node.meta.alternate ?? node;
  if (n.meta.macro) return Array.isArray(n.meta.macro['macroHasProps']);
  switch (n.op) {
    case 'id': case 'accuValue': case '.': case '.?': case '[]': case '[?]': case '?:':
      return !isNamespace(n);
    default:
      return false;
  }
}

/** `.?` or `[?]`, or a selection or index after one in the same chain (cel-go qualifies it only if present). */
function optionalQualifier(node: Node): boolean {
  let n = node;
  for (;;) {
    if (n.op === '.?' || n.op === '[?]') return true;
    if (n.op !== '.' && n.op !== '[]') return false;
    n = (n.args as [Node])[0];
    if (n.meta.alternate || n.meta.macro) return false;
  }
}

/** A namespace the environment defines (`google`), or a selection from one (`google.protobuf`). */
function isQualifiedName(node: Node): boolean {
  let n = node;
  while (n.op === '.' && !n.meta.alternate && !n.meta.macro) n = (n.args as [Node])[0];
  return isNamespace(n);
}

/** An identifier, or a selection or index chain that starts at one. */
function rootedAtIdentifier(node: Node): boolean {
  let n = node;
  for (;;) {
    if (n.meta.alternate || n.meta.macro) return false;
    if (n.op === 'id') return !isNamespace(n);
    if (n.op === 'accuValue') return true;
    if (n.op === '.' || n.op === '.?' || n.op === '[]' || n.op === '[?]') n = (n.args as [Node])[0];
    else return false;
  }
}
