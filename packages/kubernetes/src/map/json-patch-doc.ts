/**
 * The document model of json-patch v4 (gopkg.in/evanphx/json-patch.v4 `patch.go`), for
 * json-patch.ts: how a path is walked (`findObject`), how containers get, add and remove a key,
 * with the library's array indices (Go's `strconv.Atoi`, negatives from the end) and its errors.
 * The walk copies each container it passes at most once (copy-on-write), so a patch costs at most
 * one copy of the object. Hand-written for the same reason as json-patch.ts.
 */
import { isForbiddenKey } from '@verdict/core';

export type Json = Record<string, unknown>;
export type Container = Json | unknown[];

/** An error of json-patch v4, with its message. */
export class Failure extends Error {}

export const MISSING = 'missing value';
const INVALID_INDEX = 'invalid index referenced';

/** Go's strconv.Atoi: an optional sign and decimal digits. */
function atoi(key: string): number {
  if (!/^[+-]?\d+$/.test(key)) throw new Failure(`strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`);
  return Number(key);
}

/** RFC 6901 unescaping as json-patch v4 does it (`~1` then `~0`, left to right; other `~` kept). */
export const decode = (segment: string): string => segment.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));
export const encode = (segment: string): string => segment.replaceAll('~', '~0').replaceAll('/', '~1');

function safe(key: string): string {
  if (isForbiddenKey(key)) throw new Error(`JSON Patch: path segment "${key}" is not allowed: it could change object prototypes`);
  return key;
}

/** An array index of a get/set/remove (in range, negatives from the end); throws json-patch's error. */
export function index(key: string, length: number, extra = 0): number {
  const idx = atoi(key);
  if (idx < 0) {
    if (idx < -(length + extra)) throw new Failure(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
    return idx + length + extra;
  }
  if (idx >= length + extra) throw new Failure(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
  return idx;
}

/** The value at `key` (`undefined` for a missing key or `null`, as json-patch v4 reads both); array errors throw. */
export function get(c: Container, key: string): unknown {
  if (Array.isArray(c)) return c[index(key, c.length)] ?? undefined;
  return Object.prototype.hasOwnProperty.call(c, key) ? (c[key] ?? undefined) : undefined;
}

/** A parent container found for a path, its last key, and the normalized pointer of the parent. */
export interface Found {
  parent: Container;
  key: string;
  at: string;
}

/** The working copy: containers copied on first write, each at most once. */
export class Doc {
  root: Container;
  private readonly owned = new WeakSet<object>();

  constructor(target: Json) {
    this.root = { ...target };
    this.owned.add(this.root);
  }

  /** `replace` of the whole object: a private copy of the value becomes the root. */
  replace(value: Container): void {
    this.root = Array.isArray(value) ? [...value] : { ...value };
    this.owned.add(this.root);
  }

  private own(holder: Container, key: string | number, child: Container): Container {
    if (this.owned.has(child)) return child;
    const copy = Array.isArray(child) ? [...child] : { ...child };
    this.owned.add(copy);
    if (Array.isArray(holder)) holder[key as number] = copy;
    else Object.defineProperty(holder, key, { value: copy, writable: true, enumerable: true, configurable: true });
    return copy;
  }

  /** json-patch v4's findObject: walks every segment but the last; `undefined` when one is missing, null or a scalar. */
  find(path: string): Found | undefined {
    const split = path.split('/');
    if (split.length < 2) return undefined;
    let doc: Container = this.root;
    let at = '';
    for (const raw of split.slice(1, -1)) {
      const part = safe(decode(raw));
      let next: unknown;
      let slot: string | number = part;
      try {
        if (Array.isArray(doc)) {
          slot = index(part, doc.length);
          next = doc[slot] ?? undefined;
        } else next = get(doc, part);
      } catch {
        return undefined;
      }
      if (next === undefined || (typeof next !== 'object')) return undefined;
      doc = this.own(doc, slot, next as Container);
      at += `/${encode(String(slot))}`;
    }
    return { parent: doc, key: safe(decode(split[split.length - 1]!)), at };
  }
}

export function setKey(c: Json, key: string, value: unknown): void {
  Object.defineProperty(c, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Adds `value` at `key` of `f.parent` (json-patch v4's container add); the normalized path. */
export function addAt(f: Found, value: unknown): string {
  const { parent, key } = f;
  if (!Array.isArray(parent)) {
    setKey(parent, key, value);
    return `${f.at}/${encode(key)}`;
  }
  if (key === '-') {
    parent.push(value);
    return `${f.at}/-`;
  }
  let idx: number;
  try {
    idx = atoi(key);
  } catch (error) {
    throw new Failure(`value was not a proper array index: '${key}': ${(error as Error).message}`);
  }
  idx = index(key, parent.length, 1);
  parent.splice(idx, 0, value);
  return `${f.at}/${idx}`;
}

/** Removes `key` of `f.parent` (json-patch v4's container remove); the normalized path. */
export function removeAt(f: Found): string {
  const { parent, key } = f;
  if (!Array.isArray(parent)) {
    if (!Object.prototype.hasOwnProperty.call(parent, key)) throw new Failure(`Unable to remove nonexistent key: ${key}: ${MISSING}`);
    delete parent[key];
    return `${f.at}/${encode(key)}`;
  }
  const idx = index(key, parent.length);
  parent.splice(idx, 1);
  return `${f.at}/${idx}`;
}

/** The pointer of `key` in `f.parent` (array indices from the start). */
export function pointer(f: Found): string {
  return Array.isArray(f.parent) ? `${f.at}/${index(f.key, f.parent.length)}` : `${f.at}/${encode(f.key)}`;
}
