/**
 * `patchType: JSONPatch` of a MutatingAdmissionPolicy, applied as the API server applies it
 * (`policy/mutating/patch/json_patch.go`, which uses gopkg.in/evanphx/json-patch.v4). That
 * library departs from RFC 6902 in ways a policy can meet:
 * - `replace` of a key an object does not have adds it; `copy` from such a key adds `null`;
 * - a key whose value is `null` counts as missing on the way to a path (and in `test`);
 * - array indices may be negative (counted from the end), have a sign or leading zeros;
 * - a `test` of a missing key without `value` holds; a failed `test` leaves the object unchanged
 *   (json_patch.go), while a `test` whose parent path is missing is an error;
 * - `add` and `replace` without `value` write `null`; a path without a leading `/` drops its first
 *   segment.
 * The operations are simulated on a copy-on-write view of the object (each container copied at most
 * once, so linear in the object), and given back as RFC 6902 operations that do the same thing (a
 * `replace` that adds becomes an `add`, indices are written from the start), which core then applies
 * and a mutating webhook answers with. Errors carry json-patch v4's messages behind `JSON Patch: `,
 * as the API server reports them.
 * Hand-written: no JavaScript JSON Patch library reproduces json-patch v4's leniencies.
 */
import { PatchTestFailed, type PatchOperation } from '@verdict/core';
import { isObject } from '../read.js';
import { typeOf } from '../suggest.js';

type Json = Record<string, unknown>;
type Container = Json | unknown[];

/** The patch type name of a MutatingAdmissionPolicy's `JSONPatch` mutations (also usable in verdict's templates). */
export const MAP_JSON_PATCH = 'KubernetesJSONPatch';

/** Keys that could reach an object prototype: refused, as core refuses them in every patch. */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
const MISSING = 'missing value';
const INVALID_INDEX = 'invalid index referenced';

/** One operation as the expression gave it (`from` only when not empty, `value` only when set). */
interface Op {
  op: string;
  path: string;
  from?: string;
  hasValue: boolean;
  value?: unknown;
}

class Failure extends Error {}

function readOps(value: unknown): Op[] {
  if (!Array.isArray(value)) throw new Error('type mismatch: JSONPatchType.expression should evaluate to array');
  return value.map((item) => {
    if (!isObject(item)) throw new Error(`type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch, got element of ${typeOf(item)}`);
    const text = (key: string): string => {
      const v = item[key];
      if (v === undefined || v === null) return '';
      if (typeof v !== 'string') throw new Error(`type mismatch: JSONPatch ${key} must be a string (got ${typeOf(v)})`);
      return v;
    };
    const out: Op = { op: text('op'), path: text('path'), hasValue: Object.prototype.hasOwnProperty.call(item, 'value') };
    const from = text('from');
    if (from.length > 0) out.from = from;
    if (out.hasValue) out.value = item['value'];
    return out;
  });
}

/** Go's strconv.Atoi: an optional sign and decimal digits. */
function atoi(key: string): number {
  if (!/^[+-]?\d+$/.test(key)) throw new Failure(`strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`);
  return Number(key);
}

/** RFC 6901 unescaping as json-patch v4 does it (`~1` then `~0`, left to right; other `~` kept). */
const decode = (segment: string): string => segment.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));
const encode = (segment: string): string => segment.replaceAll('~', '~0').replaceAll('/', '~1');

function safe(key: string): string {
  if (FORBIDDEN.has(key)) throw new Error(`JSON Patch: path segment "${key}" is not allowed: it could change object prototypes`);
  return key;
}

/** An array index of a get/set/remove (in range, negatives from the end); throws json-patch's error. */
function index(key: string, length: number, extra = 0): number {
  const idx = atoi(key);
  if (idx < 0) {
    if (idx < -(length + extra)) throw new Failure(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
    return idx + length + extra;
  }
  if (idx >= length + extra) throw new Failure(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
  return idx;
}

/** The value at `key` (`undefined` for a missing key or `null`, as json-patch v4 reads both); array errors throw. */
function get(c: Container, key: string): unknown {
  if (Array.isArray(c)) return c[index(key, c.length)] ?? undefined;
  return Object.prototype.hasOwnProperty.call(c, key) ? (c[key] ?? undefined) : undefined;
}

/** A parent container found for a path, its last key, and the normalized pointer of the parent. */
interface Found {
  parent: Container;
  key: string;
  at: string;
}

/** The working copy: containers copied on first write, each at most once. */
class Doc {
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

function setKey(c: Json, key: string, value: unknown): void {
  Object.defineProperty(c, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Adds `value` at `key` of `f.parent` (json-patch v4's container add); the normalized path. */
function addAt(f: Found, value: unknown): string {
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
function removeAt(f: Found): string {
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
function pointer(f: Found): string {
  return Array.isArray(f.parent) ? `${f.at}/${index(f.key, f.parent.length)}` : `${f.at}/${encode(f.key)}`;
}

/** Structural equality of JSON values, without recursion (objects may be deep). */
function equal(a: unknown, b: unknown): boolean {
  const stack: Array<[unknown, unknown]> = [[a, b]];
  while (stack.length > 0) {
    const [x, y] = stack.pop()!;
    if (x === y) continue;
    if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object' || Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x)) {
      const ys = y as unknown[];
      if (x.length !== ys.length) return false;
      x.forEach((v, i) => stack.push([v, ys[i]]));
      continue;
    }
    const kx = Object.keys(x);
    if (kx.length !== Object.keys(y).length) return false;
    for (const k of kx) {
      if (!Object.prototype.hasOwnProperty.call(y, k)) return false;
      stack.push([(x as Json)[k], (y as Json)[k]]);
    }
  }
  return true;
}

/** Applies one operation to `doc`; the RFC 6902 operations that do the same (none for a `test` that needs none). */
function apply(doc: Doc, op: Op): PatchOperation[] {
  const value = op.hasValue ? op.value : null;
  const wrap = (what: string, fn: () => string): string => {
    try {
      return fn();
    } catch (error) {
      if (error instanceof Failure) throw new Failure(`${what}: ${error.message}`);
      throw error;
    }
  };
  switch (op.op) {
    case 'add': {
      const f = doc.find(op.path);
      if (!f) throw new Failure(`add operation does not apply: doc is missing path: "${op.path}": ${MISSING}`);
      return [{ op: 'add', path: wrap(`error in add for path: '${op.path}'`, () => addAt(f, value)), value }];
    }
    case 'remove': {
      const f = doc.find(op.path);
      if (!f) throw new Failure(`remove operation does not apply: doc is missing path: "${op.path}": ${MISSING}`);
      return [{ op: 'remove', path: wrap(`error in remove for path: '${op.path}'`, () => removeAt(f)) }];
    }
    case 'replace': {
      if (op.path === '') {
        if (!isObject(value) && !Array.isArray(value)) throw new Failure(`replace operation value must be object or array: ${MISSING}`);
        doc.replace(value as Container);
        return [{ op: 'replace', path: '', value }];
      }
      const f = doc.find(op.path);
      if (!f) throw new Failure(`replace operation does not apply: doc is missing path: ${op.path}: ${MISSING}`);
      const { parent, key } = f;
      if (Array.isArray(parent)) {
        let idx: number;
        try {
          idx = index(key, parent.length);
        } catch {
          throw new Failure(`replace operation does not apply: doc is missing key: ${op.path}: ${MISSING}`);
        }
        parent[idx] = value;
        return [{ op: 'replace', path: `${f.at}/${idx}`, value }];
      }
      const existed = Object.prototype.hasOwnProperty.call(parent, key);
      setKey(parent, key, value);
      return [{ op: existed ? 'replace' : 'add', path: `${f.at}/${encode(key)}`, value }];
    }
    case 'move': {
      if (op.from === undefined) throw new Failure(`move operation failed to decode from: operation, missing from field: ${MISSING}`);
      const source = doc.find(op.from);
      if (!source) throw new Failure(`move operation does not apply: doc is missing from path: ${op.from}: ${MISSING}`);
      let v: unknown;
      const from = wrap(`error in move for path: '${source.key}'`, () => {
        v = get(source.parent, source.key) ?? null;
        return removeAt(source);
      });
      const f = doc.find(op.path);
      if (!f) throw new Failure(`move operation does not apply: doc is missing destination path: ${op.path}: ${MISSING}`);
      const path = wrap(`error in move for path: '${op.path}'`, () => addAt(f, v));
      return [{ op: 'move', from, path }];
    }
    case 'copy': {
      if (op.from === undefined) throw new Failure(`copy operation failed to decode from: operation, missing from field: ${MISSING}`);
      const source = doc.find(op.from);
      if (!source) throw new Failure(`copy operation does not apply: doc is missing from path: ${op.from}: ${MISSING}`);
      let v: unknown;
      let from = '';
      wrap(`error in copy for from: '${op.from}'`, () => {
        v = get(source.parent, source.key);
        if (v !== undefined) from = pointer(source);
        return '';
      });
      const f = doc.find(op.path);
      if (!f) throw new Failure(`copy operation does not apply: doc is missing destination path: ${op.path}: ${MISSING}`);
      const path = wrap('error while adding value during copy', () => addAt(f, v ?? null));
      // A missing source key copies null (json-patch v4 copies its nil node).
      return v === undefined ? [{ op: 'add', path, value: null }] : [{ op: 'copy', from, path }];
    }
    case 'test':
      return test(doc, op);
    default:
      throw new Failure(`Unexpected kind: ${op.op}`);
  }
}

function test(doc: Doc, op: Op): PatchOperation[] {
  const failed = () => new PatchTestFailed(`testing value ${op.path} failed: test failed`);
  if (op.path === '') {
    if (!op.hasValue || !equal(doc.root, op.value)) throw failed();
    return [{ op: 'test', path: '', value: op.value }];
  }
  const f = doc.find(op.path);
  if (!f) throw new Failure(`test operation does not apply: is missing path: ${op.path}: ${MISSING}`);
  let current: unknown;
  let path = '';
  try {
    current = get(f.parent, f.key);
    path = pointer(f);
  } catch (error) {
    throw new Failure(`error in test for path: '${op.path}': ${(error as Error).message}`);
  }
  if (current === undefined) {
    // json-patch v4: a missing (or null) value equals only an operation without value.
    if (op.hasValue) throw failed();
    return [];
  }
  if (!op.hasValue || !equal(current, op.value)) throw failed();
  return [{ op: 'test', path, value: op.value }];
}

/**
 * core's patch type `JSONPatch` for MutatingAdmissionPolicies: the operations, checked and applied
 * as the API server applies them, as RFC 6902 operations on the object as it is now.
 */
export function apiServerJsonPatch(value: unknown, target: unknown): readonly PatchOperation[] {
  const ops = readOps(value);
  const doc = new Doc(isObject(target) ? target : {});
  const out: PatchOperation[] = [];
  for (const op of ops) {
    try {
      out.push(...apply(doc, op));
    } catch (error) {
      if (error instanceof Failure) throw new Error(`JSON Patch: ${error.message}`, { cause: error });
      throw error;
    }
  }
  return out;
}
