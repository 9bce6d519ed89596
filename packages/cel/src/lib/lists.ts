/**
 * The Kubernetes lists library (k8s.io/apiserver/pkg/cel/library/lists.go): isSorted, sum, min, max,
 * indexOf, lastIndexOf on lists of comparable values; and cel-go's sets extension (sets.contains,
 * sets.equivalent, sets.intersects), which the API server enables from 1.29. The list functions spend Kubernetes'
 * `traversalCost` of the list, the sets functions cel-go's `trackSetsCost` (costed.ts).
 * Also equality of optional values, which cel-go has and cel-js lacks.
 */
import type { Environment, Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { fail, spend, work } from '../runtime.js';
import { celTypeName } from '../values.js';
import { structuralEquals } from '../cost.js';
import { setsUnits, traversalCost } from './costed.js';
import type { CelLibrary } from './index.js';
import { compare as compareQuantities, Quantity } from './quantity.js';

type Comparable = bigint | number | string | boolean | Quantity | { valueOf(): bigint };

/** CEL ordering of two comparable values (numbers across int/uint/double); an error for others. */
export function compareValues(a: unknown, b: unknown): number {
  return cmp(a, b);
}

/** A uint (cel-js's `UnsignedInt`) as its bigint; any other value as it is. */
function unsigned(v: unknown): unknown {
  return v instanceof UnsignedInt ? v.valueOf() : v;
}

function cmp(a: unknown, b: unknown): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (a instanceof UnsignedInt || b instanceof UnsignedInt) return cmp(unsigned(a), unsigned(b));
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) {
    const x = Number(a);
    const y = Number(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Quantity && b instanceof Quantity) return compareQuantities(a, b);
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let i = 0; i < a.length && i < b.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
    return a.length - b.length;
  }
  if (celTypeName(a) === 'Duration' && celTypeName(b) === 'Duration') {
    const [x, y] = [a as { seconds: bigint; nanos: number }, b as { seconds: bigint; nanos: number }];
    return x.seconds !== y.seconds ? (x.seconds < y.seconds ? -1 : 1) : x.nanos - y.nanos;
  }
  const [x, y] = [(a as Comparable | null)?.valueOf?.(), (b as Comparable | null)?.valueOf?.()];
  if (typeof x === 'bigint' && typeof y === 'bigint') return x < y ? -1 : x > y ? 1 : 0;
  return fail(`no such overload: cannot compare ${celTypeName(a)} with ${celTypeName(b)}`);
}

/**
 * CEL equality for list members: numbers compare across int/uint/double, quantities by value, containers
 * element by element (iteratively, charged per element: ../cost.ts). Two strings are compared here: the
 * functions that compare members have their comparisons in their upstream units already (a list's traversal,
 * |a|·|b| for the sets), so reading long strings is verdict's work.
 */
export function celEquals(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' || typeof b === 'string') {
    if (typeof a !== 'string' || typeof b !== 'string' || a.length !== b.length) return false;
    if (a.length >= 10) work(Math.floor(a.length / 10));
    return a === b;
  }
  return a === b || structuralEquals(a, b, scalarEquals);
}

function scalarEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const numeric = (v: unknown) => typeof v === 'number' || typeof v === 'bigint' || typeof (v as { valueOf?: () => unknown } | null)?.valueOf?.() === 'bigint';
  if (numeric(a) && numeric(b)) return cmp(a, b) === 0;
  if (a instanceof Quantity && b instanceof Quantity) return compareQuantities(a, b) === 0;
  return false;
}

/** A list of the Kubernetes lists library, after spending its traversal (library/cost.go: isSorted, sum, min, max, indexOf, lastIndexOf). */
function list(v: unknown[]): unknown[] {
  spend(traversalCost(v));
  return v;
}

function extreme(items: unknown[], sign: number, name: string): unknown {
  if (items.length === 0) fail(`${name} called on empty list`);
  let best = items[0];
  for (const x of items) if (cmp(x, best) * sign > 0) best = x;
  return best;
}

function sum(items: unknown[]): unknown {
  if (items.length === 0) return 0n;
  let acc: unknown = items[0];
  for (let i = 1; i < items.length; i++) {
    const x = items[i];
    if (typeof acc === 'bigint' && typeof x === 'bigint') acc = acc + x;
    else if (typeof acc === 'number' && typeof x === 'number') acc = acc + x;
    // uint and duration sums (lists.go sums any list of a summable type); the constructors check their ranges.
    else if (acc instanceof UnsignedInt && x instanceof UnsignedInt) acc = new UnsignedInt(acc.valueOf() + x.valueOf());
    else if (acc instanceof Duration && x instanceof Duration) acc = acc.addDuration(x);
    else fail(`no such overload: sum of ${celTypeName(acc)} and ${celTypeName(x)}`);
  }
  return acc;
}

function register(env: Environment): void {
  env.registerFunction('list<dyn>.isSorted(): bool', (l: unknown[]) => {
    list(l);
    for (let i = 1; i < l.length; i++) if (cmp(l[i - 1], l[i]) > 0) return false;
    return true;
  });
  env.registerFunction('list<dyn>.sum(): dyn', (l: unknown[]) => sum(list(l)));
  env.registerFunction('list<dyn>.min(): dyn', (l: unknown[]) => extreme(list(l), -1, 'min'));
  env.registerFunction('list<dyn>.max(): dyn', (l: unknown[]) => extreme(list(l), 1, 'max'));
  env.registerFunction('list<dyn>.indexOf(dyn): int', (l: unknown[], x: unknown) => BigInt(list(l).findIndex((y) => celEquals(x, y))));
  env.registerFunction('list<dyn>.lastIndexOf(dyn): int', (l: unknown[], x: unknown) => {
    const items = list(l);
    for (let i = items.length - 1; i >= 0; i--) if (celEquals(x, items[i])) return BigInt(i);
    return -1n;
  });
  // Optional values compare like cel-go's Optional.Equal: both empty, or both set to equal values.
  env.registerOperator('optional<dyn> == optional<dyn>', (a: Optional, b: Optional) => a.hasValue() === b.hasValue() && (!a.hasValue() || celEquals(a.value(), b.value())));
  class SetsNamespace {}
  env.registerType('SetsNamespace', SetsNamespace);
  env.registerConstant('sets', 'SetsNamespace', new SetsNamespace());
  // ext/sets.go's trackers: one unit and |a|·|b| comparisons (equivalent: twice that), spent before comparing.
  const contains = (a: unknown[], b: unknown[]) => b.every((x) => a.some((y) => celEquals(x, y)));
  env.registerFunction('SetsNamespace.contains(list<dyn>, list<dyn>): bool', (_: unknown, a: unknown[], b: unknown[]) => {
    spend(setsUnits(a, b, 1));
    return contains(a, b);
  });
  env.registerFunction('SetsNamespace.equivalent(list<dyn>, list<dyn>): bool', (_: unknown, a: unknown[], b: unknown[]) => {
    spend(setsUnits(a, b, 2));
    return contains(a, b) && contains(b, a);
  });
  env.registerFunction('SetsNamespace.intersects(list<dyn>, list<dyn>): bool', (_: unknown, a: unknown[], b: unknown[]) => {
    spend(setsUnits(a, b, 1));
    return b.length > 0 && a.some((x) => b.some((y) => celEquals(x, y)));
  });
}

export const listsLibrary: CelLibrary = { name: 'lists', register };
