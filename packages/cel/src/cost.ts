/**
 * The cost of CEL operators and cel-js built-in functions whose work grows with their operands. Each charges
 * two ways (meter.ts): the API server's units with `spend`, exactly as cel-go's runtime cost tracker charges the
 * call (interpreter/runtimecost.go `costCall`: `==`/`!=` and ordering of strings, bytes, lists and maps
 * ⌈min(size) ⁄ 10⌉, `in` a list its length, `+` of strings and bytes ⌈(m + n) ⁄ 10⌉, `contains` ⌈m ⁄ 10⌉ × ⌈n ⁄ 10⌉,
 * `startsWith`/`endsWith` ⌈m ⁄ 10⌉, `string(bytes)`/`bytes(string)` ⌈n ⁄ 10⌉, anything else 1), and verdict's own
 * work with `work` where it does more than cel-go charges for (comparing two lists or maps walks them whole, a
 * JavaScript list `+` copies, parsing a string to a number reads it): one unit per list or map and one per
 * element or entry compared or copied, one per ten characters read. Every charge is made before the work it pays
 * for (a list is never built past the budget). Equality walks its operands with an explicit stack, so nesting
 * never reaches the JavaScript stack, and `in` on a map is a hash lookup.
 *
 * The handlers here replace the ones cel-js's checker left on each operator node (ast.ts installs them),
 * so cel-js's evaluation and the planner (which calls the same handlers) charge the same; a node whose handler
 * charges the API server's units itself ({@link chargesItself}) is not charged its unit again by units.ts.
 */
import { Optional } from '@marcbachmann/cel-js';
import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { CHARS_PER_UNIT, keyUnits, spend, WIDE_MAP, work } from './runtime.js';
import { toCel } from './values.js';
import { scanUnits, stringSize } from './lib/costed.js';
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

/** Charges verdict's work over `chars` characters: one unit per ten (nothing below ten: an O(1) operation's work). */
function chargeChars(chars: number): void {
  if (chars >= CHARS_PER_UNIT) work((chars / CHARS_PER_UNIT) | 0);
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
 * walking lists and maps with an explicit stack and charging verdict's work: one unit per pair of containers, one
 * per element or entry compared and one per ten characters of strings and bytes compared. Values of other types compare through cel-js's
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
      work(1 + x.length);
      for (let i = 0; i < x.length; i++) if (!this.pair(x[i], ys[i])) return false;
      return true;
    }
    if (x instanceof Map || y instanceof Map) return this.maps(x, y);
    const xo = x as Record<string, unknown>;
    const yo = y as Record<string, unknown>;
    // Listing the keys is the work: a spent budget stops here, before it (loops go on past an element's error).
    work(0);
    const keys = Object.keys(xo);
    work(1 + keyUnits(keys.length));
    // The other map's keys are listed too: a wide one is charged again (a narrow one's listing is within what the
    // first listing's units pay).
    const count = Object.keys(yo).length;
    if (count > WIDE_MAP) work(keyUnits(count));
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
    work(1 + map.size);
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
      work(units);
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

/** Two strings' equality, verdict's work: one unit per ten characters compared (only strings of one length are compared). */
function stringEquals(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  chargeChars(a.length);
  return a === b;
}

/** `value in list`: the list's length in the API server's units (cel-go's `InList` cost), then {@link findIn}. */
function inList(value: unknown, list: readonly unknown[], node: PlanNode, ev: Evaluator): boolean {
  spend(list.length);
  return findIn(value, list, node, ev);
}

/** Whether `list` has an element equal to `value` ({@link celEquals}; strings compared as verdict's work). */
function findIn(value: unknown, list: readonly unknown[], node: PlanNode, ev: Evaluator): boolean {
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

/** What a handler of this module is: the handler it wraps, and whether it charges the API server's units itself. */
interface Metered {
  readonly original: unknown;
  readonly charging: boolean;
}

function mark<F>(f: F, original: unknown, charging = true): F {
  (f as { [METERED]?: Metered })[METERED] = { original, charging };
  return f;
}

function meteredOf(f: unknown): Metered | undefined {
  return typeof f === 'function' ? (f as { [METERED]?: Metered })[METERED] : undefined;
}

function isMetered(f: unknown): boolean {
  return meteredOf(f) !== undefined;
}

/** Whether `handle` (a node's) charges the API server's units for its call itself (units.ts then charges none). */
export function chargesItself(handle: unknown): boolean {
  return meteredOf(handle)?.charging === true;
}

/** Puts back the handler cel-js's checker chose (a call cel-go's optimizer computes once: it costs nothing). */
export function unmeter(node: { handle?: unknown }): void {
  const metered = meteredOf(node.handle);
  if (metered) node.handle = metered.original as never;
}

/**
 * `x in [constants]`, which cel-go's optimizer turns into a set lookup that costs no units: the list's length is
 * charged as verdict's work instead.
 */
export function freeSetLookup(node: { handle?: unknown }): void {
  const metered = meteredOf(node.handle);
  if (!metered?.charging) return;
  const handle = metered.original as Binary;
  node.handle = mark((a: unknown, b: unknown, n: PlanNode, ev: Evaluator) => {
    if (!isArray(b)) return handle(a, b, n, ev);
    work(b.length);
    return findIn(a, b, n, ev);
  }, handle, false) as never;
}

/**
 * A qualifier of an optional selection (`x.?a`, `x[?k]`, and every selection after one in the same chain), which
 * cel-go observes only when the value is there: it qualifies with `QualifyIfPresent` (interpreter/attributes.go
 * applyQualifiers, sticky once a qualifier is optional) and its watcher reports a qualification only when present
 * (interpreter/interpretable.go evalWatchConstQual.QualifyIfPresent), at 1 unit (runtimecost.go: `ConstantQualifier`).
 * The node's handler spends that unit when its result is a present optional; an absent field costs nothing.
 */
export function chargeWhenPresent(node: { handle?: unknown }): void {
  const handle = node.handle;
  if (typeof handle !== 'function' || isMetered(handle)) return;
  const select = handle as Binary;
  node.handle = mark((a: unknown, b: unknown, n: PlanNode, ev: Evaluator) => {
    const out = select(a, b, n, ev);
    if (out instanceof Optional && out.hasValue()) spend(1);
    return out;
  }, handle) as never;
}

/** cel-go's `actualSize`: a string's code points, bytes' length, a list's or map's entries, an optional's value's; 1 for anything else. */
function actualSize(v: unknown): number {
  if (typeof v === 'string') return textSize(v);
  if (v instanceof Uint8Array || isArray(v)) return v.length;
  if (typeof v !== 'object' || v === null) return 1;
  if (v instanceof Map || v instanceof Set) return v.size;
  if (isPlainObject(v)) {
    // Counting a map's keys lists them: verdict's work, charged as for any listing.
    work(0);
    const n = Object.keys(v).length;
    work(keyUnits(n));
    return n;
  }
  const optional = v as { hasValue?: () => boolean; value?: () => unknown };
  if (typeof optional.hasValue === 'function' && v.constructor.name === 'Optional') return optional.hasValue() ? actualSize(optional.value!()) : 1;
  return 1;
}

/**
 * A string's size as cel-go's `types.String.Size` counts it (code points), or its UTF-16 length when that is at most
 * ten: a size that only enters the charge alone through `scanUnits` (⌈size ⁄ 10⌉ is then 1 either way) need not be scanned.
 */
function textSize(s: string): number {
  return s.length <= CHARS_PER_UNIT ? s.length : stringSize(s);
}

/**
 * min(`s`'s size, `bound`), reading `s` only as far as the smaller needs: a string has at least half as many code
 * points as UTF-16 units, so one twice as long as `bound` is not scanned (a long string compared with a short one
 * must not cost the long one's length, which the charge, the smaller size, does not pay).
 */
function textSizeUpTo(s: string, bound: number): number {
  if (s.length <= bound) return textSize(s);
  if (s.length >= 2 * bound) return bound;
  return Math.min(textSize(s), bound);
}

/** The smaller size of two strings, the longer read at most twice as far as the shorter. */
function smallerTextSize(a: string, b: string): number {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return textSizeUpTo(long, textSize(short));
}

/** `==`/`!=` and ordering in the API server's units: ⌈min(size) ⁄ 10⌉ (1 for two numbers). */
function compareUnits(a: unknown, b: unknown): number {
  if (typeof a === 'string') return scanUnits(typeof b === 'string' ? smallerTextSize(a, b) : textSizeUpTo(a, actualSize(b)));
  if (typeof b === 'string') return scanUnits(textSizeUpTo(b, actualSize(a)));
  return scanUnits(Math.min(actualSize(a), actualSize(b)));
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
        if (typeof a === 'string' && typeof b === 'string') {
          spend(scanUnits(smallerTextSize(a, b)));
          return stringEquals(a, b);
        }
        spend(compareUnits(a, b));
        if (isContainer(a) || isContainer(b)) return celEquals(a, b, node, ev);
        return handle(a, b, node, ev);
      }, handle);
    case '!=':
      return mark((a: unknown, b: unknown, node: PlanNode, ev: Evaluator) => {
        if (typeof a === 'string' && typeof b === 'string') {
          spend(scanUnits(smallerTextSize(a, b)));
          return !stringEquals(a, b);
        }
        spend(compareUnits(a, b));
        if (isContainer(a) || isContainer(b)) return !celEquals(a, b, node, ev);
        return handle(a, b, node, ev);
      }, handle);
    case 'in':
      return mark((a: unknown, b: unknown, node: PlanNode, ev: Evaluator) => {
        if (isArray(b)) return inList(a, b, node, ev);
        spend(1);
        if (typeof b === 'object' && b !== null) {
          // A hash lookup, as in cel-go (cel-js's dyn dispatch would first scan the map for its type).
          if (b instanceof Map) return mapGet(b as Map<unknown, unknown>, a) !== undefined;
          if (typeof a === 'string' && isPlainObject(b)) return hasOwn(b, a) && (b as Record<string, unknown>)[a] !== undefined;
        }
        // The right operand may be unconverted JSON (ast.ts): a number there is an int or a double, as CEL sees it.
        return handle(a, typeof b === 'number' ? toCel(b) : b, node, ev);
      }, handle);
    case '+':
      return mark((a: unknown, b: unknown, node: PlanNode, ev: Evaluator) => {
        if (typeof a === 'string') {
          if (typeof b === 'string') {
            // The API server's units count code points; the memory bound (docs/security.md: ten characters per
            // unit) counts UTF-16 units, so a string of astral code points pays its other half as verdict's work.
            const units = scanUnits(stringSize(a) + stringSize(b));
            spend(units);
            const built = scanUnits(a.length + b.length);
            if (built > units) work(built - units);
            return a + b;
          }
        } else if (isArray(a) && isArray(b)) {
          // cel-go's list `+` is O(1) (its result is a view of both); here it copies: one unit of work per element
          // copied, charged before the list is built (the memory bound).
          spend(1);
          work(a.length + b.length);
          if (a.length === 0 || b.length === 0 || ev.debugType(a[0]) === ev.debugType(b[0])) return a.concat(b);
          return handle(a, b, node, ev);
        } else if (a instanceof Uint8Array && b instanceof Uint8Array) {
          spend(scanUnits(a.length + b.length));
          return handle(a, b, node, ev);
        }
        spend(1);
        return handle(a, b, node, ev);
      }, handle);
    case '<': case '<=': case '>': case '>=':
      return mark((a: unknown, b: unknown, node: PlanNode, ev: Evaluator) => {
        if (typeof a === 'string' && typeof b === 'string') spend(scanUnits(smallerTextSize(a, b)));
        else if (a instanceof Uint8Array && b instanceof Uint8Array) spend(scanUnits(Math.min(a.length, b.length)));
        else spend(1);
        return handle(a, b, node, ev);
      }, handle);
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

/**
 * The metered handler of a call to one of cel-js's built-in functions whose work grows with its input
 * ({@link TEXT_FUNCTIONS}). `contains`, `startsWith`, `endsWith`, `bytes()` and `string()` charge the API server's
 * units themselves (cel-go's `costCall`); the others cost the API server its nominal unit (units.ts charges it),
 * and their reading of a string (`size` counts code points, conversions parse) or listing of a map's keys is
 * verdict's work, one unit per ten characters or entries.
 */
export function meteredCall(name: string, handle: CallHandle): CallHandle | undefined {
  if (!TEXT_FUNCTIONS.has(name) || isMetered(handle)) return undefined;
  switch (name) {
    case 'contains':
      return mark((values: unknown[], x: unknown, y: unknown) => {
        const [s, sub] = values;
        // An empty substring costs nothing (the product is 0): the receiver is not read to size it.
        spend(typeof s === 'string' && typeof sub === 'string' ? (sub.length === 0 ? 0 : scanUnits(textSize(s)) * scanUnits(textSize(sub))) : 1);
        return handle(values, x, y);
      }, handle);
    case 'startsWith': case 'endsWith':
      return mark((values: unknown[], x: unknown, y: unknown) => {
        const s = values[0];
        spend(typeof s === 'string' ? scanUnits(textSize(s)) : 1);
        return handle(values, x, y);
      }, handle);
    case 'bytes': case 'string':
      return mark((values: unknown[], x: unknown, y: unknown) => {
        const v = values[0];
        // string(bytes) and bytes(string) traverse their argument; every other conversion is nominal.
        const text = name === 'bytes' ? typeof v === 'string' : v instanceof Uint8Array;
        spend(text ? scanUnits(typeof v === 'string' ? textSize(v) : (v as Uint8Array).length) : 1);
        if (!text && (typeof v === 'string' || v instanceof Uint8Array)) chargeChars(v.length);
        return handle(values, x, y);
      }, handle);
    default:
      return mark((values: unknown[], x: unknown, y: unknown) => {
        let chars = 0;
        for (let i = 0; i < values.length; i++) {
          const v = values[i];
          if (typeof v === 'string' || v instanceof Uint8Array) chars += v.length;
          else if (name === 'size' && typeof v === 'object' && v !== null && !isArray(v) && isPlainObject(v)) {
            work(0);
            const n = Object.keys(v).length;
            chargeChars(n);
            return BigInt(n);
          }
        }
        chargeChars(chars);
        return handle(values, x, y);
      }, handle, false);
  }
}

/** The size of a value for charging an added function: characters / 10 of a string, elements of a list, entries of a map. */
export function sizeUnits(v: unknown): number {
  if (typeof v === 'string' || v instanceof Uint8Array) return (v.length / CHARS_PER_UNIT) | 0;
  if (typeof v !== 'object' || v === null) return 0;
  if (isArray(v)) return v.length;
  if (v instanceof Map || v instanceof Set) return v.size;
  if (!isPlainObject(v)) return 0;
  work(0);
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
