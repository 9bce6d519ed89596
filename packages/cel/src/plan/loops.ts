/**
 * Comprehensions (`all`, `exists`, `exists_one`, `map`, `filter`), `has()` and `cel.bind` as cel-js 8.0.0
 * evaluates them (lib/operators.js runQualifier/runComprehension, lib/macros.js). `all` and `exists` keep
 * going past an element's error and throw it only when no element decided; the others stop at the first
 * error. The range's size is spent from the cost meter before the first step, as verdict's instrumented
 * cel-js handler does.
 */
import { spend } from '../runtime.js';
import { below } from '../view.js';
import { lazyField } from './fields.js';
import { bindRaw, planRaw } from './raw.js';
import type { Planner, Scope } from './plan.js';
import { NotPlanned, type CelType, type ComprehensionArgs, type Evaluator, type Frame, type PlanNode, type Step } from './node.js';

export function sizeOf(items: unknown): number {
  if (Array.isArray(items)) return items.length;
  if (items instanceof Map || items instanceof Set) return items.size;
  if (items !== null && typeof items === 'object') {
    // Counting a map's keys is work: a spent budget stops here first (loops go on past an element's error).
    spend(0);
    return Object.keys(items).length;
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

export function planComprehension(p: Planner, node: PlanNode, scope: Scope): Step {
  const a = node.args as ComprehensionArgs;
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
  const { condition, result } = a;
  if (typeof result !== 'function' || (condition !== undefined && typeof condition !== 'function')) throw new NotPlanned('comprehension shape');
  /** The range (metered, as a list) and the accumulator's initial value, in its slot. */
  const start = (f: Frame): unknown[] => {
    const value = range(f);
    spend(sizeOf(value));
    // Not a container: converted first, so an error names the type a converted activation has.
    const items = iterable(ev, rawTrie && each && (value === null || typeof value !== 'object') ? below(value, rawTrie, f.conv) : value, a.iterable);
    f.slots[accu] = init(f);
    return items;
  };
  if (a.errorsAreFatal) {
    return (f) => {
      const items = start(f);
      let acc = f.slots[accu];
      for (let i = 0; i < items.length; i++) {
        if (condition && !condition(acc)) break;
        bind(f, iter, items[i]);
        acc = step(f);
      }
      return result(acc);
    };
  }
  if (!condition) throw new NotPlanned('quantifier without condition');
  return (f) => {
    const items = start(f);
    let acc = f.slots[accu];
    let error: Error | undefined;
    for (let i = 0; i < items.length; i++) {
      if (!condition(acc)) return result(acc);
      let out: unknown;
      bind(f, iter, items[i]);
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
    if (error && condition(acc)) throw error;
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
