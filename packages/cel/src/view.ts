/**
 * The CEL view of JSON: integral numbers become ints along the paths an expression reads (see
 * {@link view}). The activation of an expression cel-js evaluates is converted before the run; a planned
 * expression gets its roots as given and converts each value where it reads it (plan/raw.ts), with the
 * same function and paths, so both see the same values.
 */
import type { PathTrie } from './compile.js';
import { toCel, type CelCache } from './values.js';

/**
 * The value CEL sees for a root. Only the paths the expression reads are converted (integral numbers to
 * ints), copy-on-write: a rule reading `object.spec.containers[*].resources.limits.memory` allocates
 * nothing when those are strings, and the rest of the object is never visited. `'*'` stands for every
 * element of a list (a comprehension's range). Frozen values (parameters) convert whole, once per process.
 * `conversions.cache` is read only when a container converts.
 */
export function view(value: unknown, paths: PathTrie, conversions: { readonly cache: CelCache }): unknown {
  // Frozen values convert once per process (values.ts keeps them): the evaluation's cache is not needed.
  if (value !== null && typeof value === 'object' && Object.isFrozen(value)) return toCel(value);
  return below(value, paths, conversions);
}

/**
 * {@link view} below the root (a frozen object there is walked like any other: the result is the same). The
 * planner converts a value read from an unconverted root this way, with the paths read below where it was read.
 */
export function below(value: unknown, paths: PathTrie, conversions: { readonly cache: CelCache }): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'number' ? toCel(value) : value;
  if (paths === true) return toCel(value, conversions.cache);
  if (Array.isArray(value)) {
    const each = paths.each;
    if (!each) return value;
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const next = below(item, each, conversions);
      if (next !== item) (copy ??= value.slice())[i] = next;
    }
    return copy ?? value;
  }
  // A plain object (JSON) almost always has Object as its constructor; anything else is checked by its prototype.
  if ((value as { constructor?: unknown }).constructor !== Object) {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return toCel(value, conversions.cache);
  }
  let copy: Record<string, unknown> | undefined;
  const { keys, subs } = paths;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (!hasOwn(value, key)) continue;
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    const next = typeof item === 'string' ? item : below(item, subs[i]!, conversions);
    if (next !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = next;
  }
  return copy ?? value;
}

const hasOwn = Object.hasOwn;


/** A root a planned expression reads unconverted: as given, but a frozen one converted whole (once per process). */
export function given(value: unknown): unknown {
  return value !== null && typeof value === 'object' && Object.isFrozen(value) ? toCel(value) : value;
}

/**
 * An empty activation: no inherited members (a root named `toString` is absent unless given) and, unlike
 * `Object.create(null)`, fast properties (a null-prototype object starts in dictionary mode in V8).
 */
export const Activation = function Activation() {
  // properties are added by the caller
} as unknown as new () => Record<string, unknown>;
(Activation as unknown as { prototype: object }).prototype = Object.create(null) as object;
