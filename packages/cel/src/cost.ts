/**
 * The cost of CEL operators and built-in functions whose work grows with their operands, after
 * Kubernetes' runtime cost model (cel-go interpreter/runtimecost.go, k8s.io/apiserver/pkg/cel/library/cost.go):
 * `==`/`!=` and ordering of strings by the characters compared, `in` on a list by its length, `+` on strings
 * by the size of the result, `size`/`contains`/`startsWith`/`endsWith`/conversions by the characters
 * they read. Where verdict does more work than cel-go (a JavaScript list `+` copies; comparing two lists or
 * maps walks them whole) the charge follows that work: one unit per list or map and one per element or entry
 * compared or copied. Every charge is made before the work it pays for (a list is never built past the budget), in
 * one `spend` per operation. Equality walks its operands with an explicit stack, so nesting never
 * reaches the JavaScript stack, and `in` on a map is a hash lookup.
 *
 * The handlers here replace the ones cel-js's checker left on each operator node (ast.ts installs them),
 * so cel-js's evaluation and the planner (which calls the same handlers) charge the same.
 */
import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { CHARS_PER_UNIT, keyUnits, spend, WIDE_MAP } from './runtime.js';
import { toCel } from './values.js';
import type { CelType, Evaluator, PlanNode } from './plan/node.js';

type Binary = (left: unknown, right: unknown, node: PlanNode, ev: Evaluator) => unknown;

/** cel-js's evaluator as far as equality needs it: the registry that finds an `==` overload for two types. */
interface Registry {
  findBinaryOverload(op: string, left: CelType, right: CelType): { handler: Binary } | false | undefined;
  getListType(element: CelType): CelType;
  getMapType(key: CelType, value: CelType): CelType;
}

const isArray = Array.isArray;

const hasOwn = Object.hasOwn;
const OBJECT = Object.prototype;

/** Spends for work over `chars` characters: one unit per ten (nothing below ten: an O(1) operation's work). */
function chargeChars(chars: number): void {
  if (chars >= CHARS_PER_UNIT) spend((chars / CHARS_PER_UNIT) | 0);
}

/** A JSON-like map: a plain object (as JSON gives it) or a `Map`. */
function isPlainObject(v: object): boolean {
  const c = (v as { constructor?: unknown }).constructor;
  if (c === Object || c === undefined) {
    const proto = Object.getPrototypeOf(v) as unknown;
    return proto === OBJECT || proto === null;
  }
  return false;
}

/** 1: list (array), 2: plain-object map, 3: `Map`, 0: anything else. */
function containerKind(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  if (isArray(v)) return 1;
  if (v instanceof Map) return 3;
  return isPlainObject(v) ? 2 : 0;
}

/**
 * CEL equality of two values (cel-js's `isEqual`, with heterogeneous numbers equal by value, as cel-go),
 * walking lists and maps with an explicit stack and charging one unit per pair of containers, one per element
 * or entry compared and one per ten characters of strings and bytes compared. Values of other types compare through cel-js's
 * `==` overload for their type (timestamps, durations, uints, optionals, bytes); two values of different
 * types are unequal.
 */
export function celEquals(a: unknown, b: unknown, node: PlanNode, ev: Evaluator): boolean {
  return structuralEquals(a, b, (x, y) => leafEquals(x, y, node, ev));
}

/**
 * Equality of lists and maps element by element, with an explicit stack, charged one unit per pair of
 * containers, one per element or entry and one per ten characters of strings compared; `leaf` compares two values that are not both strings
 * and of which neither is a list or map (the library's own rule for numbers, quantities, …).
 */
export function structuralEquals(a: unknown, b: unknown, leaf: (x: unknown, y: unknown) => boolean): boolean {
  const walk = new Walk(leaf);
  try {
    if (!walk.pair(a, b)) return false;
    const { left, right } = walk;
    while (left.length > 0) {
      const x = left.pop() as object;
      const y = right.pop() as object;
      if (!walk.containers(x, y)) return false;
    }
    return true;
  } finally {
    walk.settle();
  }
}

/**
 * One equality walk: pairs of containers still to compare (an explicit stack), and the characters compared
 * and not yet charged. Scalars are compared where they are met; only lists and maps are pushed.
 */
class Walk {
  readonly left: object[] = [];
  readonly right: object[] = [];
  chars = 0;
  constructor(readonly leaf: (x: unknown, y: unknown) => boolean) {}

  /** Compares two values now, or pushes them when both are containers of the same kind; false when unequal. */
  pair(x: unknown, y: unknown): boolean {
    if (typeof x === 'string') {
      if (typeof y !== 'string' || x.length !== y.length) return false;
      if ((this.chars += x.length) >= 4096) this.settle();
      return x === y;
    }
    if (x === y) return true;
    const kx = containerKind(x);
    if (kx === 0) return containerKind(y) === 0 && this.leaf(x, y);
    const ky = containerKind(y);
    if (ky === 0 || (kx === 1) !== (ky === 1)) return false;
    this.left.push(x as object);
    this.right.push(y as object);
    return true;
  }

  /** Compares the elements or entries of two containers of the same kind: a unit for the pair, one per element or entry. */
  containers(x: object, y: object): boolean {
    if (isArray(x)) {
      const ys = y as unknown[];
      if (x.length !== ys.length) return false;
      spend(1 + x.length);
      for (let i = 0; i < x.length; i++) if (!this.pair(x[i], ys[i])) return false;
      return true;
    }
    if (x instanceof Map || y instanceof Map) return this.maps(x, y);
    const xo = x as Record<string, unknown>;
    const yo = y as Record<string, unknown>;
    // Listing the keys is the work: a spent budget stops here, before it (loops go on past an element's error).
    spend(0);
    const keys = Object.keys(xo);
    spend(1 + keyUnits(keys.length));
    // The other map's keys are listed too: a wide one is charged again (a narrow one's listing is within what the
    // first listing's units pay).
    const count = Object.keys(yo).length;
    if (count > WIDE_MAP) spend(keyUnits(count));
    if (count !== keys.length) return false;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      if (!hasOwn(yo, key) || !this.pair(xo[key], yo[key])) return false;
    }
    return true;
  }

  /** Two maps, a `Map` (built by a function, keys of any type) on one side at least. */
  maps(x: object, y: object): boolean {
    const [map, other] = x instanceof Map ? [x as Map<unknown, unknown>, y] : [y as Map<unknown, unknown>, x];
    spend(1 + map.size);
    if (other instanceof Map) {
      if (other.size !== map.size) return false;
      for (const [key, value] of map) {
        const found = mapGet(other as Map<unknown, unknown>, key);
        if (found === undefined || !this.pair(value, found)) return false;
      }
      return true;
    }
    const oo = other as Record<string, unknown>;
    if (Object.keys(oo).length !== map.size) return false;
    for (const [key, value] of map) if (typeof key !== 'string' || !hasOwn(oo, key) || !this.pair(value, oo[key])) return false;
    return true;
  }

  /** Charges the characters compared so far (one unit per ten). */
  settle(): void {
    if (this.chars >= CHARS_PER_UNIT) {
      const units = (this.chars / CHARS_PER_UNIT) | 0;
      this.chars -= units * CHARS_PER_UNIT;
      spend(units);
    }
  }
}

/** A number as a map key: 1, 1u and 1.0 are one key (cel-js's map lookup, as cel-go's). */
function numericKey(k: unknown): bigint | undefined {
  if (typeof k === 'bigint') return k;
  if (k instanceof UnsignedInt) return k.valueOf() as bigint;
  if (typeof k === 'number' && Number.isInteger(k)) return BigInt(k);
  return undefined;
}

/** The value at `key` of a `Map`, numbers compared by value (a literal map with int and uint keys). */
function mapGet(map: Map<unknown, unknown>, key: unknown): unknown {
  const v = map.get(key);
  if (v !== undefined) return v;
  const n = numericKey(key);
  if (n === undefined) return undefined;
  for (const [k, x] of map) if (numericKey(k) === n) return x;
  return undefined;
}

/** cel-js's `isEqual` for two values that are not lists or maps (and not both the same string). */
function leafEquals(x: unknown, y: unknown, node: PlanNode, ev: Evaluator): boolean {
  switch (typeof x) {
    case 'undefined': case 'boolean': case 'string':
      return false;
    case 'bigint':
      if (y instanceof UnsignedInt) return x === y.valueOf();
      return typeof y === 'number' ? (x as unknown) == y : false;
    case 'number':
      if (y instanceof UnsignedInt) return (x as unknown) == y.valueOf();
      return typeof y === 'bigint' ? (x as unknown) == y : false;
    case 'object': {
      // int, uint and double are equal by value (cel-go's heterogeneous equality).
      if (x instanceof UnsignedInt && (typeof y === 'bigint' || typeof y === 'number')) return leafEquals(y, x, node, ev);
      if (typeof y !== 'object' || x === null || y === null) return false;
      const lt = ev.debugType(x);
      const rt = ev.debugType(y);
      if (lt !== rt) return false;
      const overload = (ev as unknown as { registry: Registry }).registry.findBinaryOverload('==', lt, rt);
      if (!overload) return false;
      if (x instanceof Uint8Array) chargeChars(x.length);
      return overload.handler(x, y, node, ev) === true;
    }
    default:
      throw ev.createError('invalid_comparison_type', `Cannot compare values of type ${typeof x}`, node);
  }
}

/** Two strings' equality: one unit per ten characters compared (only strings of one length are compared). */
function stringEquals(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  chargeChars(a.length);
  return a === b;
}

/** `value in list`: one unit per element (cel-go's `InList` cost), each compared with {@link celEquals}. */
function inList(value: unknown, list: readonly unknown[], node: PlanNode, ev: Evaluator): boolean {
  spend(list.length);
  if (typeof value === 'string') {
    for (let i = 0; i < list.length; i++) {
      const item = list[i];
      if (typeof item === 'string' && stringEquals(value, item)) return true;
    }
    return false;
  }
  const scalar = typeof value !== 'object' && typeof value !== 'bigint' && typeof value !== 'number';
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (item === value) return true;
    if (scalar && typeof item !== 'object') continue;
    if (typeof item === 'string') continue;
    if (celEquals(value, item, node, ev)) return true;
  }
  return false;
}

const METERED = Symbol('verdict.cost');

function mark<F>(f: F): F {
  (f as { [METERED]?: true })[METERED] = true;
  return f;
}

function isMetered(f: unknown): boolean {
  return typeof f === 'function' && (f as { [METERED]?: true })[METERED] === true;
}

/**
 * The metered handler of a binary operator node (`==`, `!=`, `in`, `+`, `<`, `<=`, `>`, `>=`) wrapping the
 * one cel-js's checker chose, or undefined when the operator's work never grows with its operands (both
 * operands are checked as numbers, bools, …).
 */
export function meteredBinary(op: string, handle: Binary, types: readonly (CelType | undefined)[]): Binary | undefined {
  if (isMetered(handle)) return undefined;
  const grows = types.some((t) => t === undefined || t.kind !== 'primitive' || t.name === 'string' || t.name === 'bytes');
  if (!grows) return undefined;
  switch (op) {
    case '==':
      return mark((a: unknown, b: unknown, node: PlanNode, ev: Evaluator) => {
        if (isContainer(a) || isContainer(b)) return celEquals(a, b, node, ev);
        if (typeof a === 'string' && typeof b === 'string') return stringEquals(a, b);
        return handle(a, b, node, ev);
      });
    case '!=':
      return mark((a: unknown, b: unknown, node: PlanNode, ev: Evaluator) => {
        if (isContainer(a) || isContainer(b)) return !celEquals(a, b, node, ev);
        if (typeof a === 'string' && typeof b === 'string') return !stringEquals(a, b);
        return handle(a, b, node, ev);
      });
    case 'in':
      return mark((a: unknown, b: unknown, node: PlanNode, ev: Evaluator) => {
        if (isArray(b)) return inList(a, b, node, ev);
        if (typeof b === 'object' && b !== null) {
          // A hash lookup, as in cel-go (cel-js's dyn dispatch would first scan the map for its type).
          if (b instanceof Map) return mapGet(b as Map<unknown, unknown>, a) !== undefined;
          if (typeof a === 'string' && isPlainObject(b)) return hasOwn(b, a) && (b as Record<string, unknown>)[a] !== undefined;
        }
        // The right operand may be unconverted JSON (ast.ts): a number there is an int or a double, as CEL sees it.
        return handle(a, typeof b === 'number' ? toCel(b) : b, node, ev);
      });
    case '+':
      return mark((a: unknown, b: unknown, node: PlanNode, ev: Evaluator) => {
        if (typeof a === 'string') {
          if (typeof b === 'string') {
            chargeChars(a.length + b.length);
            return a + b;
          }
        } else if (isArray(a) && isArray(b)) {
          // A new list: one unit per element copied, spent before it is built (the memory bound).
          spend(a.length + b.length);
          if (a.length === 0 || b.length === 0 || ev.debugType(a[0]) === ev.debugType(b[0])) return a.concat(b);
        }
        return handle(a, b, node, ev);
      });
    case '<': case '<=': case '>': case '>=':
      return mark((a: unknown, b: unknown, node: PlanNode, ev: Evaluator) => {
        if (typeof a === 'string' && typeof b === 'string') chargeChars(Math.min(a.length, b.length));
        return handle(a, b, node, ev);
      });
    default:
      return undefined;
  }
}

/** A list or map (compared by {@link celEquals}; other objects, timestamps or optionals, through cel-js's handler). */
function isContainer(v: unknown): boolean {
  return containerKind(v) !== 0;
}

/** Built-in functions whose work grows with a string or bytes argument, by name. */
const TEXT_FUNCTIONS = new Set(['size', 'contains', 'startsWith', 'endsWith', 'bytes', 'string', 'int', 'uint', 'double', 'bool', 'timestamp', 'duration']);

type CallHandle = (values: unknown[], x: unknown, y: unknown) => unknown;

/** Type conversions: cel-go charges each call one unit (`bytes` and `string` of a string: one per ten characters, rounded up). */
const CONVERSIONS = new Set(['bytes', 'string', 'int', 'uint', 'double', 'bool', 'timestamp', 'duration']);

/**
 * The metered handler of a call to one of cel-js's built-in functions whose work grows with its input
 * ({@link TEXT_FUNCTIONS}): one unit per ten characters of its string and bytes arguments (the receiver
 * included), and for `size` of a map, one per ten entries (counted once, the result computed here). A
 * conversion ({@link CONVERSIONS}) costs at least one unit, rounded up to the next ten characters.
 */
export function meteredCall(name: string, handle: CallHandle): CallHandle | undefined {
  if (!TEXT_FUNCTIONS.has(name) || isMetered(handle)) return undefined;
  const size = name === 'size';
  const conversion = CONVERSIONS.has(name);
  return mark((values: unknown[], x: unknown, y: unknown) => {
    let chars = 0;
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (typeof v === 'string' || v instanceof Uint8Array) chars += v.length;
      else if (size && typeof v === 'object' && v !== null && !isArray(v) && isPlainObject(v)) {
        spend(0);
        const n = Object.keys(v).length;
        chargeChars(n);
        return BigInt(n);
      }
    }
    if (conversion) spend(Math.max(1, Math.ceil(chars / CHARS_PER_UNIT)));
    else chargeChars(chars);
    return handle(values, x, y);
  });
}

/** The size of a value for charging an added function: characters / 10 of a string, elements of a list, entries of a map. */
export function sizeUnits(v: unknown): number {
  if (typeof v === 'string' || v instanceof Uint8Array) return (v.length / CHARS_PER_UNIT) | 0;
  if (typeof v !== 'object' || v === null) return 0;
  if (isArray(v)) return v.length;
  if (v instanceof Map || v instanceof Set) return v.size;
  if (!isPlainObject(v)) return 0;
  spend(0);
  return Object.keys(v).length;
}

/** Lists below which a value's type is looked at element by element (see {@link boundTypeLookups}). */
const TYPE_DEPTH = 8;

/**
 * Bounds cel-js's run-time type lookup (`debugTypeDeep`, used to pick an overload for `dyn` operands). cel-js
 * follows the first element of lists and maps down to the bottom, recursively, and finds a plain object's
 * first entry with `for…in`, which enumerates every key: on a map of 10,000 labels or an object nested
 * 10,000 deep that is work per call no cost pays for, and a stack overflow. Here a plain object's type is
 * `map(dyn, dyn)` (what cel-go gives a JSON object) and the first elements are followed at most
 * {@link TYPE_DEPTH} levels, without recursion. Installed once on each environment's evaluator.
 */
export function boundTypeLookups(ev: Evaluator): void {
  const target = ev as unknown as { debugTypeDeep: (value: unknown) => CelType; registry: Registry; [METERED]?: true };
  if (target[METERED]) return;
  target[METERED] = true;
  const registry = target.registry;
  target.debugTypeDeep = (value: unknown): CelType => {
    let lists = 0;
    let at = value;
    let type = ev.debugType(at);
    while (type.kind === 'list' && lists < TYPE_DEPTH) {
      const first: unknown = isArray(at) ? at[0] : (at as Set<unknown>).values().next().value;
      if (first === undefined) break;
      lists++;
      at = first;
      type = ev.debugType(at);
    }
    if (type.kind === 'map' && at instanceof Map) {
      // A Map (built by a function) is typed by its first entry's key and value, one level down.
      const entry = at.entries().next().value as [unknown, unknown] | undefined;
      if (entry) type = registry.getMapType(ev.debugType(entry[0]), ev.debugType(entry[1]));
    }
    while (lists-- > 0) type = registry.getListType(type);
    return type;
  };
}
