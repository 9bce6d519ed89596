/** Small, allocation-conscious helpers over plain JSON-like values. */

export type JsonObject = Record<string, unknown>;

const hasOwn = Object.prototype.hasOwnProperty;

/** Keys refused in documents, parameters and patches: they could reach object prototypes. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export function isPlainObject(value: unknown): value is JsonObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Own-property read: never returns inherited members such as `constructor`. */
export function ownGet(container: unknown, key: string): unknown {
  if (container === null || container === undefined) return undefined;
  if (typeof container !== 'object') {
    return typeof container === 'string' && hasOwn.call(Object(container), key) ? (container as unknown as Record<string, unknown>)[key] : undefined;
  }
  return hasOwn.call(container, key) ? (container as Record<string, unknown>)[key] : undefined;
}

export function ownHas(container: unknown, key: string): boolean {
  return container !== null && typeof container === 'object' && hasOwn.call(container, key);
}

/** Reads a path of own properties; `undefined` when any step is missing. */
export function getPath(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (let i = 0; i < path.length; i++) {
    if (current === null || current === undefined) return undefined;
    current = ownGet(current, path[i]!);
  }
  return current;
}

/**
 * Finds the first forbidden key anywhere in a JSON-like value.
 * Returns the JSON pointer of the offending key, or `undefined`.
 */
export function findForbiddenKey(value: unknown, base = '', depth = 0): { key: string; path: string } | undefined {
  if (value === null || typeof value !== 'object' || depth > 256) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findForbiddenKey(value[i], `${base}/${i}`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const path = `${base}/${escapePointerSegment(key)}`;
    if (FORBIDDEN_KEYS.has(key)) return { key, path };
    const found = findForbiddenKey((value as JsonObject)[key], path, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** Structural equality of JSON-like values (key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!hasOwn.call(b, k) || !deepEqual((a as JsonObject)[k], (b as JsonObject)[k])) return false;
  }
  return true;
}

/** Freezes a JSON-like value in place, deeply, and returns it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as JsonObject)[key]);
  }
  return value;
}

/** A deep copy of a JSON-like value (functions and class instances are not expected). */
export function deepClone<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(deepClone) as T;
  const out: JsonObject = {};
  for (const key of Object.keys(value)) out[key] = deepClone((value as JsonObject)[key]);
  return out as T;
}

export function escapePointerSegment(segment: string): string {
  return segment.includes('~') || segment.includes('/') ? segment.replace(/~/g, '~0').replace(/\//g, '~1') : segment;
}

/** Formats path segments as a JSON pointer (`['a', 'b/c']` → `/a/b~1c`). */
export function toPointer(segments: readonly (string | number)[]): string {
  let out = '';
  for (const s of segments) out += `/${escapePointerSegment(String(s))}`;
  return out;
}

/** Parses a JSON pointer; throws `Error` with a reason when it is malformed. */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (pointer[0] !== '/') throw new Error(`a JSON pointer must start with "/" (got "${pointer}")`);
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => {
      if (/~[^01]|~$/.test(segment)) throw new Error(`invalid escape in JSON pointer segment "${segment}" (use ~0 for ~ and ~1 for /)`);
      return segment.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

/**
 * Accepts the three path notations users write: a JSON pointer (`/object/metadata/labels`),
 * a dotted path (`object.metadata.labels`) or a list of segments (for keys containing dots).
 */
export function parsePathNotation(path: unknown): string[] {
  if (Array.isArray(path)) {
    if (!path.every((s) => typeof s === 'string' || typeof s === 'number')) throw new Error('a path given as a list must hold only strings and numbers');
    return path.map(String);
  }
  if (typeof path !== 'string') throw new Error(`a path must be a string or a list of segments (got ${describeType(path)})`);
  if (path === '') return [];
  if (path.startsWith('/')) return parsePointer(path);
  return path.split('.');
}

/** `string`, `number`, `null`, `array`, `object`, … for messages. */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Short, single-line rendering of a value for messages. */
export function preview(value: unknown, max = 60): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
