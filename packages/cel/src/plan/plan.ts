/**
 * The CEL planner: turns a checked cel-js AST into JavaScript closures once, at load (as cel-go plans
 * its checked AST into interpretable nodes). cel-js evaluates by walking the tree on every run: a
 * dispatch per node, a context object per comprehension, variables looked up through context chains.
 * The plan does the same work with none of that: variables bound by comprehensions and `cel.bind` are
 * numbered slots, operators and calls invoke the handler the checker already chose (`node.handle`, with
 * cel-js's evaluator), and errors are cel-js's errors. A node kind or macro it does not know makes
 * {@link planCel} return undefined: the whole expression then runs in cel-js (never half of it).
 *
 * Semantics followed node by node (cel-js 8.0.0, lib/operators.js, macros.js, registry.js): operands
 * evaluate left to right, call arguments and list elements right to left; `&&`/`||` are commutative over
 * errors; `all`/`exists` let a decisive element win over an earlier error, the other comprehensions stop
 * at the first. Each node where a block of the API server's cost units starts spends them first (units.ts).
 */
import type { Environment } from '@marcbachmann/cel-js';
import { mapInsert, mapLiteral, optionalList } from '@marcbachmann/cel-js/evaluator';
import { planBind, planComprehension, planHas } from './loops.js';
import { planAnd, planOr, planTernary } from './logic.js';
import { planCallNode } from './calls.js';
import { dynChain } from './fields.js';
import { hoisted } from './hoist.js';
import { canGenerate, generate } from './emit.js';
import { escape, planRaw } from './raw.js';
import type { PathTrie } from '../compile.js';
import { spend } from '../runtime.js';
import { chargeOf } from '../units.js';
import type { CelCache } from '../values.js';
import { evaluateName, evaluatorOf, NotPlanned, type Evaluator, type Frame, type PlanNode, type Step } from './node.js';

/** Plan-time scope: slots of the names bound around a node, and of the innermost accumulator. */
export interface Scope {
  readonly vars: ReadonlyMap<string, number>;
  /** Bound names whose values are unconverted JSON, with the paths read below them (plan/raw.ts). */
  readonly raw: ReadonlyMap<string, PathTrie>;
  readonly accu: number | undefined;
  /** Slots allocated so far in this expression. */
  readonly count: { n: number };
}

/** The planner's view of one expression: plans a node in a scope. */
export interface Planner {
  readonly ev: Evaluator;
  /** Roots the activation gives unconverted, with the paths the expression reads below each. */
  readonly roots: ReadonlyMap<string, PathTrie>;
  /** Every function of the environment is pure (invariant calls may be computed once: plan/hoist.ts). */
  readonly pure: boolean;
  plan(node: PlanNode, scope: Scope): Step;
  /** `node`'s step without the units of a block starting there (the generated code spends them itself). */
  bare(node: PlanNode, scope: Scope): Step;
}

/**
 * A planned expression: evaluates against an activation (free name → CEL value; the roots given to
 * {@link planCel} as JSON), with the evaluation's conversions (default: a fresh cache).
 */
export type Plan = (activation: Readonly<Record<string, unknown>>, conversions?: { readonly cache: CelCache }) => unknown;

/** How a plan runs: one generated function (plan/emit.ts), or a closure per node. */
export type Backend = 'generated' | 'closures';

/**
 * Plans a checked expression, or undefined when some node needs cel-js's own evaluation. The plan is
 * generated code where the runtime compiles code (plan/emit.ts), else (or with `backend: 'closures'`) closures.
 */
export function planCel(root: PlanNode, env: Environment, options: { roots?: ReadonlyMap<string, PathTrie>; pure?: boolean; backend?: Backend } = {}): { run: Plan; backend: Backend } | undefined {
  const planner: Planner = { ev: evaluatorOf(env), roots: options.roots ?? new Map(), pure: options.pure ?? false, plan: (node, scope) => planNode(planner, node, scope), bare: (node, scope) => planInner(planner, node, scope) };
  const attempt = (backend: Backend): { run: Plan; backend: Backend } | undefined => {
    const count = { n: 0 };
    const scope: Scope = { vars: new Map(), raw: new Map(), accu: undefined, count };
    let step: Step;
    try {
      step = backend === 'generated' ? generate(planner, root, scope) : planner.plan(root, scope);
    } catch (error) {
      if (error instanceof NotPlanned) return undefined;
      throw error;
    }
    const size = count.n;
    return { run: (act, conv = new Conversions()) => step({ act, slots: size === 0 ? EMPTY : new Array<unknown>(size), conv }), backend };
  };
  return ((options.backend ?? 'generated') === 'generated' && canGenerate() ? attempt('generated') : undefined) ?? attempt('closures');
}

const EMPTY: unknown[] = [];

/** Conversions of one evaluation, the cache made when first needed. */
class Conversions {
  #cache: CelCache | undefined;
  get cache(): CelCache {
    return (this.#cache ??= new Map());
  }
}

export function expectEvaluate(node: PlanNode, ...names: string[]): void {
  const name = evaluateName(node);
  if (name === undefined || !names.includes(name)) throw new NotPlanned(`${node.op} evaluated by ${name ?? 'nothing'}`);
}

export function handleOf<F>(node: PlanNode): F {
  if (typeof node.handle !== 'function') throw new NotPlanned(`${node.op} without a handler`);
  return node.handle as unknown as F;
}

type Binary = (left: unknown, right: unknown, node: PlanNode, ev: Evaluator) => unknown;
type Unary = (value: unknown, node: PlanNode, ev: Evaluator) => unknown;

/** A node's step, spending first the units of the block that starts there (units.ts). */
function planNode(p: Planner, node: PlanNode, scope: Scope): Step {
  const step = planInner(p, node, scope);
  const units = chargeOf(node);
  if (units === 0) return step;
  return (f) => {
    spend(units);
    return step(f);
  };
}

function planInner(p: Planner, node: PlanNode, scope: Scope): Step {
  const { alternate, macro } = node.meta;
  if (alternate) return p.plan(alternate, scope);
  if (macro) {
    if (Array.isArray(macro['macroHasProps'])) return planHas(p, macro['macroHasProps'] as PlanNode[], scope);
    if (typeof macro['var'] === 'string' && macro['val'] && macro['exp'] && macro['bindCtx']) return planBind(p, macro, scope);
    throw new NotPlanned('macro');
  }
  const ev = p.ev;
  if (node.op === 'id' || node.op === '.') {
    const raw = planRaw(p, node, scope);
    if (raw) return escape(raw);
  }
  switch (node.op) {
    case 'value': {
      expectEvaluate(node, 'evaluate');
      const value = node.args;
      return () => value;
    }
    case 'id':
      expectEvaluate(node, 'evaluate');
      return planId(p, node, scope);
    case '.': case '.?': {
      expectEvaluate(node, 'evaluateBinaryFirst');
      const handle = handleOf<Binary>(node);
      if (node.op === '.' && handle.name === 'fieldAccess') return planChain(p, node, scope);
      const [inner, field] = node.args as [PlanNode, string];
      const left = p.plan(inner, scope);
      return (f) => handle(left(f), field, node, ev);
    }
    case '[]': case '[?]':
    case '==': case '!=': case 'in': case '+': case '-': case '*': case '/': case '%':
    case '<': case '<=': case '>': case '>=': {
      expectEvaluate(node, 'evaluateBinary');
      const handle = handleOf<Binary>(node);
      const [l, r] = node.args as [PlanNode, PlanNode];
      const left = p.plan(l, scope);
      const right = p.plan(r, scope);
      return (f) => handle(left(f), right(f), node, ev);
    }
    case '!_': case '-_': {
      expectEvaluate(node, 'evaluateUnary');
      const handle = handleOf<Unary>(node);
      const operand = p.plan(node.args as PlanNode, scope);
      return (f) => handle(operand(f), node, ev);
    }
    case '&&':
      expectEvaluate(node, 'evaluate');
      return planAnd(p, node, scope);
    case '||':
      expectEvaluate(node, 'evaluate');
      return planOr(p, node, scope);
    case '?:':
      expectEvaluate(node, 'evaluate');
      return planTernary(p, node, scope);
    case 'call':
      expectEvaluate(node, 'evaluate');
      return hoisted(p, node, scope, planCallNode(p, node, scope));
    case 'rcall':
      expectEvaluate(node, 'evaluate');
      return hoisted(p, node, scope, planCallNode(p, node, scope));
    case 'list': {
      const items = node.args as PlanNode[];
      if (items.length === 0) {
        expectEvaluate(node, 'emptyList', 'evaluate');
        return () => [];
      }
      if (evaluateName(node) === 'evaluateOptional') {
        // `[?x, …]`: the elements, then those marked optional kept when present (cel-js's optionalList).
        const values = planList(p, items, scope);
        const ev = p.ev;
        return (f) => optionalList(ev, node, values(f));
      }
      expectEvaluate(node, 'evaluate');
      return planList(p, items, scope);
    }
    case 'map':
      return planMap(p, node, scope);
    case 'comprehension':
      expectEvaluate(node, 'evaluate');
      return planComprehension(p, node, scope);
    case 'accuValue': case 'accuInc': case 'accuPush': case 'accuSet': case 'accuMerge':
      return planAccu(p, node, scope);
    default:
      throw new NotPlanned(node.op);
  }
}

/** `a.b.c…` on `dyn` values: the longest chain of such selections below `node`, as one step. */
function planChain(p: Planner, node: PlanNode, scope: Scope): Step {
  const [nodes, at] = selections(node);
  return dynChain(nodes, p.ev, p.plan(at, scope));
}

/** The chain of `dyn` field selections ending at `node` (innermost first) and the node below it. */
export function selections(node: PlanNode): [PlanNode[], PlanNode] {
  const nodes: PlanNode[] = [];
  let at = node;
  while (at.op === '.' && !at.meta.alternate && !at.meta.macro && evaluateName(at) === 'evaluateBinaryFirst' && at.handle?.name === 'fieldAccess') {
    nodes.push(at);
    at = (at.args as [PlanNode, string])[0];
  }
  return [nodes.reverse(), at];
}

/** Values of `nodes` as a fresh array, evaluated last to first (cel-js's order: the last error wins). */
function planList(p: Planner, nodes: readonly PlanNode[], scope: Scope): (f: Frame) => unknown[] {
  const steps = nodes.map((n) => p.plan(n, scope));
  switch (steps.length) {
    case 0: return () => [];
    case 1: {
      const [a] = steps as [Step];
      return (f) => [a(f)];
    }
    case 2: {
      const [a, b] = steps as [Step, Step];
      return (f) => {
        const second = b(f);
        return [a(f), second];
      };
    }
    default: return (f) => {
      let i = steps.length;
      const out = new Array<unknown>(i);
      while (i--) out[i] = steps[i]!(f);
      return out;
    };
  }
}

export function planId(p: Planner, node: PlanNode, scope: Scope): Step {
  const name = node.args as string;
  const slot = scope.vars.get(name);
  if (slot !== undefined) return (f) => f.slots[slot];
  const type = node.checkedType;
  if (!type || type.kind === 'message') throw new NotPlanned('message-typed variable');
  const ev = p.ev;
  return (f) => {
    const value = f.act[name];
    if (value === undefined) throw ev.createError('unknown_variable', `Unknown variable: ${name}`, node);
    if (type.matchesValueType(value, ev)) return value;
    throw ev.createError('variable_type_mismatch', `Variable '${name}' is not of type '${type.name}', got '${ev.debugType(value).name}'`, node);
  };
}

function planMap(p: Planner, node: PlanNode, scope: Scope): Step {
  const entries = node.args as [PlanNode, PlanNode][];
  if (entries.length === 0) {
    expectEvaluate(node, 'emptyMap', 'evaluate');
    return () => ({});
  }
  expectEvaluate(node, 'evaluate');
  const steps = entries.map(([k, v]) => [p.plan(k, scope), p.plan(v, scope)] as const);
  const ev = p.ev;
  // cel-js's mapLiteral: a plain object, prototype-changing keys dropped, a repeated key an error, optional entries kept when present.
  return (f) => mapLiteral(ev, node, steps.map(([k, v]) => [k(f), v(f)]));
}

type AccuMap = Record<string, unknown> | Map<unknown, unknown>;

/** transformMapEntry's step: every entry of `map` inserted into the accumulator (cel-js's accuMerge). */
export function mergeEntries(ev: Evaluator, node: PlanNode, accu: AccuMap, map: unknown): AccuMap {
  let out = accu;
  if (map instanceof Map) for (const [k, v] of map as Map<unknown, unknown>) out = mapInsert(ev, node, out, k, v);
  else if (map !== null && typeof map === 'object' && map.constructor === Object) for (const k of Object.keys(map)) out = mapInsert(ev, node, out, k, (map as Record<string, unknown>)[k]);
  else throw ev.createError('invalid_map_entry', `transformMapEntry() expression must be a map, got '${ev.debugType(map).name}'`, node.args as PlanNode);
  return out;
}

function planAccu(p: Planner, node: PlanNode, scope: Scope): Step {
  const accu = scope.accu;
  if (accu === undefined) throw new NotPlanned('accumulator outside a comprehension');
  switch (node.op) {
    case 'accuValue':
      expectEvaluate(node, 'evaluate');
      return (f) => f.slots[accu];
    case 'accuInc':
      expectEvaluate(node, 'evaluate');
      return (f) => (f.slots[accu] = (f.slots[accu] as number) + 1);
    case 'accuSet': {
      // transformMap: the key and the value, then the entry inserted (a key present already is an error).
      expectEvaluate(node, 'evaluate');
      const [k, v] = node.args as [PlanNode, PlanNode];
      const key = p.plan(k, scope);
      const value = p.plan(v, scope);
      const ev = p.ev;
      return (f) => {
        const kv = key(f);
        const vv = value(f);
        return (f.slots[accu] = mapInsert(ev, node, f.slots[accu] as Record<string, unknown>, kv, vv));
      };
    }
    case 'accuMerge': {
      // transformMapEntry: every entry of the map the step gives, inserted.
      expectEvaluate(node, 'evaluate');
      const entries = p.plan(node.args as PlanNode, scope);
      const ev = p.ev;
      return (f) => (f.slots[accu] = mergeEntries(ev, node, f.slots[accu] as AccuMap, entries(f)));
    }
    default: {
      expectEvaluate(node, 'evaluate', 'evaluateSync');
      const item = p.plan(node.args as PlanNode, scope);
      return (f) => {
        const list = f.slots[accu] as unknown[];
        list.push(item(f));
        return list;
      };
    }
  }
}
