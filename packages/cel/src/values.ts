/**
 * Values between JSON and CEL. CEL has int (int64), uint and double where JSON has one number type; the
 * Kubernetes API server decodes an integral JSON number as int64, so verdict does too: an integral number
 * read from the input or the parameters is a CEL int (a `bigint`), any other number a double. Lists and
 * maps stay arrays and plain objects. Conversion copies only the containers that hold an integral number.
 * Frozen objects (parameters) convert once per process; others once per policy evaluation (`cache`), so an
 * input changed between two evaluations is never seen stale.
 */
import { keyUnits, workConversion } from './runtime.js';
import { isForbiddenKey } from './keys.js';

const frozen = new WeakMap<object, unknown>();

/** Conversions of one evaluation. */
export type CelCache = Map<object, unknown>;

/**
 * A JSON value as CEL sees it (integral numbers become `bigint`). Iterative (an explicit stack, no recursion):
 * nesting never reaches the JavaScript stack. A container converted whole is remembered once per evaluation
 * (`cache`; frozen ones once per process), so reading it again costs a lookup.
 *
 * Converting is verdict's own work (cel-go reads its input in place), so it is charged in verdict's units, from
 * the running meter, before the work: one unit per container and one per entry (key or element) of it (four per
 * key of a map wider than a thousand keys: `keyUnits`), one charge of work per container (`workConversion`). A frozen
 * value (parameters) converts once per process and is not charged: that is not the evaluation's work, and its
 * cost would otherwise depend on what ran before.
 */
export function toCel(value: unknown, cache?: CelCache): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (value === null || typeof value !== 'object') return value;
  const done = converted(value, cache);
  return done !== undefined ? done : convertContainer(value, cache);
}

/** A container's conversion already made (frozen: this process; else this evaluation), or undefined. */
function converted(value: object, cache: CelCache | undefined): unknown {
  return Object.isFrozen(value) ? frozen.get(value) : cache?.get(value);
}

/** A container being converted: its keys (undefined for a list), the next index, its copy once a child changed. */
interface Converting {
  readonly value: object;
  readonly keys: readonly string[] | undefined;
  /** Entries (elements or keys). */
  readonly size: number;
  i: number;
  copy: unknown[] | Record<string, unknown> | undefined;
  /** The key (or index) of the child being converted below it. */
  at: string | number;
}

/** A frame for a list or a plain object (undefined for anything else: kept as it is), charged when `charge`. */
function frame(value: object, charge: boolean): Converting | undefined {
  let keys: string[] | undefined;
  if (!Array.isArray(value)) {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return undefined;
    // Listing the keys is the work: a spent budget stops here, before it (loops go on past an element's error).
    if (charge) workConversion(0);
    // A plain object's own keys (JSON has no inherited ones); Object.keys is much faster than for…in on a wide map.
    keys = Object.keys(value);
  }
  const size = keys === undefined ? (value as unknown[]).length : keys.length;
  if (charge) workConversion(1 + (keys === undefined ? size : keyUnits(size)));
  return { value, keys, size, i: 0, copy: undefined, at: 0 };
}

/** Sets `key` of the frame's copy (made on the first change) to `next`. */
function put(f: Converting, key: string | number, next: unknown): void {
  if (f.keys === undefined) ((f.copy ??= (f.value as unknown[]).slice()) as unknown[])[key as number] = next;
  else ((f.copy ??= { ...(f.value as Record<string, unknown>) }) as Record<string, unknown>)[key as string] = next;
}

/**
 * Converts `root` whole and remembers the result for `root` only: the containers inside it are reached
 * again through it (a read below a value read whole reads the converted value), so remembering each of them
 * would cost a map entry per container for nothing.
 */
function convertContainer(root: object, cache: CelCache | undefined): unknown {
  const isFrozen = Object.isFrozen(root);
  const first = frame(root, !isFrozen);
  if (!first) {
    remember(root, root, cache, isFrozen);
    return root;
  }
  const charge = !isFrozen;
  const stack: Converting[] = [first];
  for (;;) {
    const f = stack[stack.length - 1]!;
    if (f.i < f.size) {
      const key: string | number = f.keys === undefined ? f.i : f.keys[f.i]!;
      f.i++;
      const item = (f.value as Record<string | number, unknown>)[key];
      if (typeof item === 'number') {
        if (Number.isInteger(item)) put(f, key, BigInt(item));
      } else if (item !== null && typeof item === 'object') {
        const below = frame(item, charge);
        if (below) {
          f.at = key;
          stack.push(below);
        }
      }
      continue;
    }
    stack.pop();
    const out = f.copy ?? f.value;
    const parent = stack[stack.length - 1];
    if (!parent) {
      remember(root, out, cache, isFrozen);
      return out;
    }
    if (out !== f.value) put(parent, parent.at, out);
  }
}

function remember(value: object, out: unknown, cache: CelCache | undefined, isFrozen: boolean): void {
  if (isFrozen) frozen.set(value, out);
  else cache?.set(value, out);
}

/**
 * A CEL result as JSON data (for json-logic, templates and patches): ints become numbers, maps objects,
 * optionals their value (or null), bytes base64 text, types their name. Iterative, as `toCel`.
 */
export function fromCel(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return leafFromCel(value);
  if (isJson(value)) return value;
  // Containers: lists (arrays, sets), maps (Map, plain objects) and optionals; each gives its JSON parts.
  const root: { out: unknown } = { out: undefined };
  const work: Array<{ value: unknown; set: (v: unknown) => void }> = [{ value, set: (v) => (root.out = v) }];
  // Plain arrays and objects are copied only when a part changes: their parts are set after all are done.
  const finish: Array<() => void> = [];
  while (work.length > 0) {
    const { value: v, set } = work.pop()!;
    if (typeof v !== 'object' || v === null) {
      set(leafFromCel(v));
      continue;
    }
    if (Array.isArray(v)) {
      if (!v.some(needsFromCel)) {
        set(v);
        continue;
      }
      const out = new Array<unknown>(v.length);
      set(out);
      for (let i = 0; i < v.length; i++) work.push({ value: v[i], set: (x) => (out[i] = x) });
      continue;
    }
    if (v instanceof Map) {
      const out: Record<string, unknown> = {};
      set(out);
      for (const [k, item] of v) {
        const key = String(k);
        if (!isForbiddenKey(key)) work.push({ value: item, set: (x) => (out[key] = x) });
      }
      continue;
    }
    if (v instanceof Set) {
      const items = [...v];
      const out = new Array<unknown>(items.length);
      set(out);
      items.forEach((item, i) => work.push({ value: item, set: (x) => (out[i] = x) }));
      continue;
    }
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto === Object.prototype || proto === null) {
      const o = v as Record<string, unknown>;
      const parts = new Map<string, unknown>();
      let changed = false;
      for (const key in o) {
        const item = o[key];
        if (!needsFromCel(item)) continue;
        work.push({ value: item, set: (x) => {
          parts.set(key, x);
          if (x !== item) changed = true;
        } });
      }
      finish.push(() => set(changed ? { ...o, ...Object.fromEntries(parts) } : o));
      continue;
    }
    const ctor = (v as { constructor?: { name?: string } }).constructor;
    if (ctor?.name === 'Optional') {
      const opt = v as { hasValue(): boolean; value(): unknown };
      if (opt.hasValue()) work.push({ value: opt.value(), set });
      else set(null);
      continue;
    }
    set(leafFromCel(v));
  }
  // Objects finish inner first (they were met outer first).
  for (let i = finish.length - 1; i >= 0; i--) finish[i]!();
  return root.out;
}

/** Whether a list or map holds only JSON values already (no int, no `Map`, …): {@link fromCel} gives it as it is. */
function isJson(root: object): boolean {
  const stack: object[] = [root];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        if (typeof item === 'object' && item !== null) stack.push(item);
        else if (typeof item === 'bigint' || item === undefined) return false;
      }
      continue;
    }
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) return false;
    for (const key in v) {
      const item = (v as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) stack.push(item);
      else if (typeof item === 'bigint') return false;
    }
  }
  return true;
}

/** {@link fromCel} of a value that holds no other value. */
function leafFromCel(value: unknown): unknown {
  switch (typeof value) {
    case 'bigint':
      return Number(value);
    case 'object':
      break;
    default:
      return value;
  }
  if (value === null) return null;
  if (value instanceof Uint8Array) return bytesToBase64(value);
  if (value instanceof Date) return value.toISOString();
  const ctor = (value as { constructor?: { name?: string } }).constructor;
  if (ctor?.name === 'Type') return String((value as { name: string }).name);
  if (typeof (value as { valueOf(): unknown }).valueOf() === 'bigint') return Number((value as { valueOf(): bigint }).valueOf());
  return String(value);
}

function needsFromCel(v: unknown): boolean {
  return typeof v === 'bigint' || (v !== null && typeof v === 'object');
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard base64 (RFC 4648) without Node's Buffer or the DOM's btoa. */
function bytesToBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const [a, b, c] = [bytes[i]!, bytes[i + 1], bytes[i + 2]];
    out += B64[a >> 2]! + B64[((a & 3) << 4) | ((b ?? 0) >> 4)]!;
    out += b === undefined ? '=' : B64[((b & 15) << 2) | ((c ?? 0) >> 6)]!;
    out += c === undefined ? '=' : B64[c & 63]!;
  }
  return out;
}

/** The CEL type name of a runtime value, for messages. */
export function celTypeName(value: unknown): string {
  switch (typeof value) {
    case 'bigint': return 'int';
    case 'number': return 'double';
    case 'string': return 'string';
    case 'boolean': return 'bool';
    case 'undefined': return 'missing';
    default: break;
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Uint8Array) return 'bytes';
  const ctor = (value as { constructor?: { name?: string } }).constructor;
  if (ctor === Object || ctor === undefined || value instanceof Map) return 'map';
  if (ctor?.name === 'UnsignedInt') return 'uint';
  if (ctor?.name === 'Optional') return 'optional';
  return ctor?.name ?? 'object';
}

/** UTF-8 bytes of a string (core has no TextEncoder: it builds against ES2022 only). */
export function utf8(text: string): number[] {
  const out: number[] = [];
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return out;
}
