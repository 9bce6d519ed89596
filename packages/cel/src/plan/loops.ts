/**
 * Comprehensions (`all`, `exists`, `exists_one`, `map`, `filter`), `has()` and `cel.bind` as cel-js 8.0.0
 * evaluates them (lib/operators.js runQualifier/runComprehension, lib/macros.js). `all` and `exists` keep
 * going past an element's error and throw it only when no element decided; the others stop at the first
 * error. The range's size is charged as verdict's work before the first step, as verdict's instrumented
 * cel-js handler does (ast.ts); the API server's units of each step are charged where its block starts (units.ts).
 */
import { keyUnits, work } from '../runtime.js';
import { below } from '../view.js';
import { lazyField } from './fields.js';
import { bindRaw, planRaw } from './raw.js';
import type { Planner, Scope } from './plan.js';
import { NotPlanned, type CelType, type ComprehensionArgs, type Evaluator, type Frame, type PlanNode, type Step } from './node.js';

/** The work a comprehension over `items` charges before it iterates: a unit per element or key (four per key of a wide map). */
export function sizeOf(items: unknown): number {
  if (Array.isArray(items)) return items.length;
  if (items instanceof Map || items instanceof Set) return items.size;
  if (items !== null && typeof items === 'object') {
    // Counting a map's keys is work: a spent budget stops here first (loops go on past an element's error).
    work(0);
    return keyUnits(Object.keys(items).length);
  }
  return 1;
}

/** cel-js `toIterable`: a map ranges over its keys; anything else but a list is an error. */
export function iterable(ev: Evaluator, items: unknown, node: PlanNode): unknown[] {
  if (Array.isArray(items)) return items;
  if (items instanceof Set) return [...(items as Set<unknown>)];
  if (items instanceof Map) return [...(items as Map<unknown, unknown>).keys()];
  if (items && typeof items === 'object') return Object.keys(items);
  throw ev.createError('invalid_comprehension_range', `Expression of type '${ev.debugType(items).name}' cannot be range of a comprehension (must be list, map, or dynamic).`, node);
}

export function slot(scope: Scope): number {
  return scope.count.n++;
}

/** A two-variable comprehension's range as [index, element] or [key, value] pairs (cel-js `toEntries`). */
export function entries(ev: Evaluator, items: unknown, node: PlanNode): [unknown, unknown][] {
  if (Array.isArray(items)) return items.map((v, i) => [BigInt(i), v]);
  if (items instanceof Set) return [...(items as Set<unknown>)].map((v, i) => [BigInt(i), v]);
  if (items instanceof Map) return [...(items as Map<unknown, unknown>)];
  if (items && typeof items === 'object') return Object.keys(items).map((k) => [k, (items as Record<string, unknown>)[k]]);
  throw ev.createError('invalid_comprehension_range', `Expression of type '${ev.debugType(items).name}' cannot be range of a comprehension (must be list, map, or dynamic).`, node);
}

/** A comprehension the planner knows: its result (and condition) are functions; a quantifier has a condition. */
export function checkShape(a: ComprehensionArgs): void {
  const { condition, result } = a;
  if (typeof result !== 'function' || (condition !== undefined && typeof condition !== 'function')) throw new NotPlanned('comprehension shape');
  if (!a.errorsAreFatal && !condition) throw new NotPlanned('quantifier without condition');
}

export function planComprehension(p: Planner, node: PlanNode, scope: Scope): Step {
  const a = node.args as ComprehensionArgs;
  if (a.iterVar2Name !== undefined) return planTwoVarComprehension(p, a, scope);
  const ev = p.ev;
  // A range read from an unconverted root stays unconverted; its elements are converted where used.
  const raw = planRaw(p, a.iterable, scope);
  const rawTrie = raw && raw.trie !== true ? raw.trie : undefined;
  const each = rawTrie?.each;
  const range = rawTrie && each ? raw!.step : p.plan(a.iterable, scope);
  const init = p.plan(a.init, scope);
  const iter = slot(scope);
  const accu = slot(scope);
  const bind = binder(ev, a.iterVarName, a.iterCtx?.iterType);
  const vars = new Map(scope.vars).set(a.iterVarName, iter);
  const step = p.plan(a.step, { vars, raw: bindRaw(scope, a.iterVarName, rawTrie && each), accu, count: scope.count });
  checkShape(a);
  /** The range (metered, as a list) and the accumulator's initial value, in its slot. */
  const start = (f: Frame): unknown[] => {
    const value = range(f);
    work(sizeOf(value));
    // Not a container: converted first, so an error names the type a converted activation has.
    const items = iterable(ev, rawTrie && each && (value === null || typeof value !== 'object') ? below(value, rawTrie, f.conv) : value, a.iterable);
    f.slots[accu] = init(f);
    return items;
  };
  return loop(a, accu, { start, bind: (f, item) => bind(f, iter, item) }, step);
}

/**
 * A two-variable comprehension (`all(i, v, …)`, `transformMap(k, v, …)`, …): the range converted, each
 * step with the index or key in one slot and the element or value in another, in the same loop.
 */
function planTwoVarComprehension(p: Planner, a: ComprehensionArgs, scope: Scope): Step {
  const ev = p.ev;
  const range = p.plan(a.iterable, scope);
  const init = p.plan(a.init, scope);
  const first = slot(scope);
  const second = slot(scope);
  const accu = slot(scope);
  const name2 = a.iterVar2Name!;
  const bindFirst = binder(ev, a.iterVarName, a.iterCtx?.iterType);
  const bindSecond = binder(ev, name2, a.iterCtx?.iterType2);
  const vars = new Map(scope.vars).set(a.iterVarName, first).set(name2, second);
  const raw = bindRaw({ ...scope, raw: bindRaw(scope, a.iterVarName, undefined) }, name2, undefined);
  const step = p.plan(a.step, { vars, raw, accu, count: scope.count });
  checkShape(a);
  const bind = (f: Frame, pair: [unknown, unknown]): void => {
    bindSecond(f, second, pair[1]);
    bindFirst(f, first, pair[0]);
  };
  const start = (f: Frame): [unknown, unknown][] => {
    const value = range(f);
    work(sizeOf(value));
    const items = entries(ev, value, a.iterable);
    f.slots[accu] = init(f);
    return items;
  };
  return loop(a, accu, { start, bind }, step);
}

/**
 * The loop of a comprehension over the items `start` gives (after spending for them and setting the
 * accumulator): `bind` puts an item in its variables' slots, `step` gives the next accumulator. With
 * `errorsAreFatal`, the first error ends it; otherwise (`all`, `exists`) an element's error is thrown only
 * when no later element decides.
 */
function loop<T>(a: ComprehensionArgs, accu: number, items: { start: (f: Frame) => T[]; bind: (f: Frame, item: T) => void }, step: Step): Step {
  const { condition, result } = a;
  const { start, bind } = items;
  if (a.errorsAreFatal) {
    return (f) => {
      const items = start(f);
      let acc = f.slots[accu];
      for (let i = 0; i < items.length; i++) {
        if (condition && !condition(acc)) break;
        bind(f, items[i]!);
        acc = step(f);
      }
      return result(acc);
    };
  }
  const decide = condition!;
  return (f) => {
    const items = start(f);
    let acc = f.slots[accu];
    let error: Error | undefined;
    for (let i = 0; i < items.length; i++) {
      if (!decide(acc)) return result(acc);
      let out: unknown;
      bind(f, items[i]!);
      try {
        out = step(f);
      } catch (thrown) {
        out = thrown;
      }
      if (out instanceof Error) {
        error ??= out;
        continue;
      }
      acc = out;
    }
    if (error && decide(acc)) throw error;
    return result(acc);
  };
}

/** `has(a.b.c)`: the chain's root evaluated, then each field looked up lazily (cel-js's has macro). */
export function planHas(p: Planner, nodes: readonly PlanNode[], scope: Scope): Step {
  if (nodes.length < 2) throw new NotPlanned('has() shape');
  const ev = p.ev;
  // Presence does not depend on conversion: an unconverted root is read as it is.
  const last = nodes[nodes.length - 1]!;
  const rootRaw = planRaw(p, last, scope);
  const root = rootRaw ? rootRaw.step : p.plan(last, scope);
  const fields = nodes.slice(0, -1).reverse();
  for (const n of fields) if (n.op !== '.' && n.op !== '.?') throw new NotPlanned('has() shape');
  const keys = fields.map((n) => (n.args as [PlanNode, string])[1]);
  // Where a missing field ends has() with false rather than an error (the last field, or from the first `.?` on).
  const lenient = fields.map((n, j) => j === fields.length - 1 || fields.slice(0, j + 1).some((m) => m.op === '.?'));
  return (f) => {
    let obj = root(f);
    for (let j = 0; j < keys.length; j++) {
      obj = lazyField(obj, keys[j], fields[j]!, ev);
      if (obj !== undefined) continue;
      if (lenient[j]) return false;
      throw ev.createError('no_such_key', `No such key: ${keys[j]!}`, fields[j]);
    }
    return true;
  };
}

/** `cel.bind(name, value, expression)`: the value is computed once and bound in a slot. */
export function planBind(p: Planner, macro: Readonly<Record<string, unknown>>, scope: Scope): Step {
  const name = macro['var'] as string;
  const value = p.plan(macro['val'] as PlanNode, scope);
  const bindCtx = macro['bindCtx'] as { iterType?: Parameters<typeof binder>[2] };
  const bind = binder(p.ev, name, bindCtx.iterType);
  const at = slot(scope);
  const body = p.plan(macro['exp'] as PlanNode, { vars: new Map(scope.vars).set(name, at), raw: bindRaw(scope, name, undefined), accu: scope.accu, count: scope.count });
  return (f) => {
    bind(f, at, value(f));
    return body(f);
  };
}

/**
 * Binds `value` to `name` in `slot` after cel-js's check of a bound value against the variable's checked
 * type (`setIterValue`: a map bound to a message-typed variable is converted by the type's `convert`).
 */
export function binder(ev: Evaluator, name: string, type: CelType | undefined): (f: Frame, slot: number, value: unknown) => void {
  if (!type) throw new NotPlanned('untyped bound variable');
  return (f, slot, value) => {
    if (type.matchesValueType(value, ev)) {
      f.slots[slot] = value;
      return;
    }
    const valueType = ev.debugType(value);
    if (type.kind === 'message' && valueType.kind === 'map') {
      const converted = ev.objectTypes.get(type.name)?.convert?.(value);
      if (converted) {
        f.slots[slot] = converted;
        return;
      }
    }
    throw ev.createError('variable_type_mismatch', `Variable '${name}' is not of type '${type.name}', got '${valueType.name}'`);
  };
}
