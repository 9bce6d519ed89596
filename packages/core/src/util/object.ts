/** Small, allocation-conscious helpers over plain JSON-like values. */
import { FORBIDDEN_KEYS } from '@verdict/cel/internal';

export type JsonObject = Record<string, unknown>;

const hasOwn = Object.prototype.hasOwnProperty;

/** Keys refused in documents, parameters and patches, because they could reach object prototypes (one list, in @verdict/cel). */
export { FORBIDDEN_KEYS, isForbiddenKey } from '@verdict/cel/internal';

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
 * Finds the first forbidden key anywhere in a JSON-like value, at any depth (an explicit stack, never the
 * JavaScript stack), in document order. Returns the JSON pointer of the offending key, or `undefined`.
 */
export function findForbiddenKey(value: unknown, base = ''): { key: string; path: string } | undefined {
  // Pending values with their pointers, next on top: children are pushed in reverse to keep document order.
  // An entry with a key is a forbidden key met after other keys of its object: reported when reached.
  const stack: Array<{ at: unknown; path: string; key?: string }> = [{ at: value, path: base }];
  while (stack.length > 0) {
    const { at, path, key: found } = stack.pop()!;
    if (found !== undefined) return { key: found, path };
    if (at === null || typeof at !== 'object') continue;
    if (Array.isArray(at)) {
      for (let i = at.length - 1; i >= 0; i--) stack.push({ at: at[i], path: `${path}/${i}` });
      continue;
    }
    const keys = Object.keys(at);
    let end = keys.findIndex((key) => FORBIDDEN_KEYS.has(key));
    if (end === 0) return { key: keys[0]!, path: `${path}/${escapePointerSegment(keys[0]!)}` };
    if (end > 0) stack.push({ at: undefined, path: `${path}/${escapePointerSegment(keys[end]!)}`, key: keys[end]! });
    else end = keys.length;
    for (let i = end - 1; i >= 0; i--) stack.push({ at: (at as JsonObject)[keys[i]!], path: `${path}/${escapePointerSegment(keys[i]!)}` });
  }
  return undefined;
}

/** Structural equality of JSON-like values (key order ignored), with an explicit stack: any depth. */
export function deepEqual(a: unknown, b: unknown): boolean {
  const stack: unknown[] = [a, b];
  while (stack.length > 0) {
    const y = stack.pop();
    const x = stack.pop();
    if (x === y) continue;
    if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object') return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) stack.push(x[i], y[i]);
      continue;
    }
    if (Array.isArray(y)) return false;
    const kx = Object.keys(x);
    if (kx.length !== Object.keys(y).length) return false;
    for (const k of kx) {
      if (!hasOwn.call(y, k)) return false;
      stack.push((x as JsonObject)[k], (y as JsonObject)[k]);
    }
  }
  return true;
}

/** Freezes a JSON-like value in place, deeply (an explicit stack: any depth), and returns it. */
export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const at = stack.pop();
    if (at === null || typeof at !== 'object' || Object.isFrozen(at)) continue;
    Object.freeze(at);
    for (const key of Object.keys(at)) stack.push((at as JsonObject)[key]);
  }
  return value;
}

/**
 * A deep copy of a JSON-like value (functions and class instances are not expected), with an explicit
 * stack: any depth. `charge(n)`, when given, is called once per container copied with its number of
 * elements or entries, before it is copied (a meter's `spend`: a copy never outgrows the budget).
 */
export function deepClone<T>(value: T, charge?: (entries: number) => void): T {
  if (value === null || typeof value !== 'object') return value;
  const copyOf = (v: object): object => {
    if (Array.isArray(v)) {
      charge?.(1 + v.length);
      return v.slice();
    }
    const out: JsonObject = {};
    const keys = Object.keys(v);
    charge?.(1 + keys.length);
    for (const key of keys) defineOwn(out, key, (v as JsonObject)[key]);
    return out;
  };
  const root = copyOf(value);
  const stack: object[] = [root];
  while (stack.length > 0) {
    const at = stack.pop() as JsonObject;
    for (const key of Object.keys(at)) {
      const child = at[key];
      if (child !== null && typeof child === 'object') {
        const copy = copyOf(child);
        at[key] = copy;
        stack.push(copy);
      }
    }
  }
  return root as T;
}

/** Sets an own, enumerable property (a key such as `__proto__` stays data, never a prototype change). */
export function defineOwn(target: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
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
      if (!segment.includes('~')) return segment;
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
