/**
 * The API server's runtime cost of the Kubernetes library functions, as cel-go's interpreter charges a call
 * (interpreter/runtimecost.go `costCall`): an overload's own tracker first (cel-go's sets extension,
 * ext/sets.go, and lists extension at version 3, ext/lists.go), then Kubernetes' `CallCost` by function name
 * (k8s.io/apiserver/pkg/cel/library/cost.go), then cel-go's default switch (one unit, or a string scan for
 * `strings.quote`, `format` and `matches`). A function whose charge is another than that default one unit is
 * in {@link COSTED_FUNCTIONS} and its implementation spends exactly the formula (the helpers below); every other
 * library function spends nothing itself (the static pass charges its one unit) and charges its own work, if
 * it grows with its input, with `work()`.
 */
import { keyUnits, work } from '../runtime.js';

/**
 * Functions, by the name cel-go's cost code sees (`ns.name` for a namespaced one), whose implementation spends
 * the API server's units itself: the static pass charges them nothing.
 */
export const COSTED_FUNCTIONS: ReadonlySet<string> = new Set([
  // cel-go strings extension (version 2: no trackers of its own) through Kubernetes' CallCost, and cel-go's default switch.
  'indexOf', 'lastIndexOf', 'lowerAscii', 'upperAscii', 'replace', 'split', 'substring', 'trim', 'join', 'format', 'strings.quote',
  // Regular expressions: cel-go's `matches`, Kubernetes' find and findAll.
  'matches', 'find', 'findAll',
  // Kubernetes lists library (indexOf and lastIndexOf above) and cel-go's sets extension.
  'isSorted', 'sum', 'min', 'max', 'sets.contains', 'sets.equivalent', 'sets.intersects',
  // cel-go lists extension, version 3.
  'slice', 'flatten', 'sort', 'distinct', 'reverse', 'lists.range',
  // Kubernetes IP and CIDR libraries.
  'ip', 'cidr', 'isIP', 'isCIDR', 'ip.isCanonical', 'containsIP', 'containsCIDR',
  // Kubernetes URL, quantity, semver and format libraries.
  'url', 'quantity', 'isQuantity', 'semver', 'isSemver', 'validate',
]);

/** cel-go's `common.StringTraversalCostFactor`. */
const STRING_TRAVERSAL = 0.1;
/** cel-go's `common.RegexStringLengthCostFactor`. */
const REGEX_LENGTH = 0.25;
/** cel-go's `common.ListCreateBaseCost` plus the call's own unit (ext/lists.go `trackAllocatingListCall`). */
const LIST_CALL = 10 + 1;

/** A string's size as cel-go measures it (`types.String.Size`): its code points (a lone surrogate is one). */
export function stringSize(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** A string's length in UTF-8 bytes (Go's `len(string)`; a lone surrogate is U+FFFD, three bytes). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** `math.Ceil(float64(size) * StringTraversalCostFactor)`: scanning a string of `size` code points once. */
export function scanUnits(size: number): number {
  return Math.ceil(size * STRING_TRAVERSAL);
}

/** `math.Ceil(float64(size) * 2 * StringTraversalCostFactor)`: scanning a string and building a result of its size. */
export function scanTwiceUnits(size: number): number {
  return Math.ceil(size * 2 * STRING_TRAVERSAL);
}

/**
 * A regular expression run over a string (cel-go `matches`, Kubernetes `find`, `findAll`, `validate`): the string's
 * scan, `ceil((1 + size) * 0.1)`, times the pattern's guessed number of expressions, `ceil(patternSize * 0.25)`.
 */
export function regexUnits(size: number, patternSize: number): number {
  return Math.ceil((1 + size) * STRING_TRAVERSAL) * Math.ceil(patternSize * REGEX_LENGTH);
}

/** ext/lists.go `trackAllocatingListCall`: `uint64(float64(size) * factor)` plus the call and the new list. */
export function listCallUnits(factor: number, size: number): number {
  return Math.floor(size * factor) + LIST_CALL;
}

/**
 * ext/lists.go `trackListSelfCompare` (sort, distinct): the list's size squared, twice, and a tenth more when its
 * first element is a string or bytes.
 */
export function selfCompareUnits(items: readonly unknown[]): number {
  const first = items[0];
  const factor = typeof first === 'string' || first instanceof Uint8Array ? 2 + STRING_TRAVERSAL : 2;
  return listCallUnits(factor, items.length * items.length);
}

/** ext/sets.go `trackSetsCost`: the call, plus `uint64(float64(|a| * |b|) * factor)`. */
export function setsUnits(a: readonly unknown[], b: readonly unknown[], factor: number): number {
  return 1 + Math.floor(a.length * b.length * factor);
}

/** Charges `work()` for verdict's own pass over `n` characters or elements: one unit per ten, rounded up. */
export function workOver(n: number): void {
  if (n > 0) work(Math.ceil(n / 10));
}

const isArray = Array.isArray;

function isPlainMap(v: object): v is Record<string, unknown> {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Kubernetes' `traversalCost` (library/cost.go) of a value: a string `floor(UTF-8 bytes * 0.1)`, bytes
 * `floor(length * 0.1)`, a list the sum over its elements, a map the sum over its keys and values, anything
 * else one. Walked with an explicit stack (no recursion on the input's depth); the walk itself is verdict's
 * work, charged with `work()` per list or map before its elements are visited.
 */
export function traversalCost(value: unknown): number {
  let cost = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') cost += Math.floor(utf8Length(v) * STRING_TRAVERSAL);
    else if (v instanceof Uint8Array) cost += Math.floor(v.length * STRING_TRAVERSAL);
    else if (isArray(v)) {
      workOver(v.length);
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
    } else if (v instanceof Map) {
      workOver(v.size);
      for (const [k, x] of v) stack.push(k, x);
    } else if (typeof v === 'object' && v !== null && isPlainMap(v)) {
      // Listing the keys is work too: a spent budget stops here, before it.
      work(0);
      const keys = Object.keys(v);
      workOver(keyUnits(keys.length));
      for (const k of keys) stack.push(k, v[k]);
    } else cost += 1;
  }
  return cost;
}
