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
 * Hand-written: no JavaScript JSON Patch library reproduces json-patch v4's leniencies (its document
 * model, paths and containers, is in json-patch-doc.ts).
 */
import { PatchTestFailed, type PatchOperation } from '@verdict/core';
import { isObject } from '../read.js';
import { typeOf } from '../suggest.js';
import { addAt, Doc, encode, Failure, get, index, MISSING, pointer, removeAt, setKey, type Container, type Json } from './json-patch-doc.js';

/** The patch type name of a MutatingAdmissionPolicy's `JSONPatch` mutations (also usable in verdict's templates). */
export const MAP_JSON_PATCH = 'KubernetesJSONPatch';

/** One operation as the expression gave it (`from` only when not empty, `value` only when set). */
interface Op {
  op: string;
  path: string;
  from?: string;
  hasValue: boolean;
  value?: unknown;
}

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
