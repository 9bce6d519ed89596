/**
 * Values between JSON and CEL. CEL has int (int64), uint and double where JSON has one number type; the
 * Kubernetes API server decodes an integral JSON number as int64, so verdict does too: an integral number
 * read from the input or the parameters is a CEL int (a `bigint`), any other number a double. Lists and
 * maps stay arrays and plain objects. Conversion copies only the containers that hold an integral number.
 * Frozen objects (parameters) convert once per process; others once per policy evaluation (`cache`), so an
 * input changed between two evaluations is never seen stale.
 */
const MAX_INT = 2n ** 63n - 1n;
const MIN_INT = -(2n ** 63n);

const frozen = new WeakMap<object, unknown>();

/** Conversions of one evaluation. */
export type CelCache = Map<object, unknown>;

/** A JSON value as CEL sees it (integral numbers become `bigint`). */
export function toCel(value: unknown, cache?: CelCache): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (value === null || typeof value !== 'object') return value;
  const isFrozen = Object.isFrozen(value);
  const done = isFrozen ? frozen.get(value) : cache?.get(value);
  if (done !== undefined) return done;
  const out = convertContainer(value, cache);
  if (isFrozen) frozen.set(value, out);
  else cache?.set(value, out);
  return out;
}

function convertContainer(value: object, cache: CelCache | undefined): unknown {
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const next = toCel(item, cache);
      if (next !== item) {
        copy ??= value.slice();
        copy[i] = next;
      }
    }
    return copy ?? value;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  let copy: Record<string, unknown> | undefined;
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    const next = toCel(item, cache);
    if (next !== item) {
      copy ??= { ...(value as Record<string, unknown>) };
      copy[key] = next;
    }
  }
  return copy ?? value;
}

/**
 * A CEL result as JSON data (for json-logic, templates and patches): ints become numbers, maps objects,
 * optionals their value (or null), bytes base64 text, types their name.
 */
export function fromCel(value: unknown): unknown {
  switch (typeof value) {
    case 'bigint':
      return Number(value);
    case 'object':
      break;
    default:
      return value;
  }
  if (value === null) return null;
  if (Array.isArray(value)) return value.some(needsFromCel) ? value.map(fromCel) : value;
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) if (!isForbidden(String(k))) out[String(k)] = fromCel(v);
    return out;
  }
  if (value instanceof Set) return [...value].map(fromCel);
  if (value instanceof Uint8Array) return bytesToBase64(value);
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto === Object.prototype || proto === null) {
    let copy: Record<string, unknown> | undefined;
    for (const key in value) {
      const item = (value as Record<string, unknown>)[key];
      const next = fromCel(item);
      if (next !== item) {
        copy ??= { ...(value as Record<string, unknown>) };
        copy[key] = next;
      }
    }
    return copy ?? value;
  }
  const ctor = (value as { constructor?: { name?: string } }).constructor;
  if (ctor?.name === 'Optional') {
    const opt = value as { hasValue(): boolean; value(): unknown };
    return opt.hasValue() ? fromCel(opt.value()) : null;
  }
  if (value instanceof Date) return value.toISOString();
  if (ctor?.name === 'Type') return String((value as { name: string }).name);
  if (typeof (value as { valueOf(): unknown }).valueOf() === 'bigint') return Number((value as { valueOf(): bigint }).valueOf());
  return String(value);
}

function needsFromCel(v: unknown): boolean {
  return typeof v === 'bigint' || (v !== null && typeof v === 'object');
}

function isForbidden(key: string): boolean {
  return key === '__proto__' || key === 'constructor' || key === 'prototype';
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard base64 (RFC 4648) without Node's Buffer or the DOM's btoa. */
export function bytesToBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const [a, b, c] = [bytes[i]!, bytes[i + 1], bytes[i + 2]];
    out += B64[a >> 2]! + B64[((a & 3) << 4) | ((b ?? 0) >> 4)]!;
    out += b === undefined ? '=' : B64[((b & 15) << 2) | ((c ?? 0) >> 6)]!;
    out += c === undefined ? '=' : B64[c & 63]!;
  }
  return out;
}

/** Whether a bigint fits CEL's int64. */
export function inIntRange(v: bigint): boolean {
  return v >= MIN_INT && v <= MAX_INT;
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
