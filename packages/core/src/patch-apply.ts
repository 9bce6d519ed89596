/**
 * One RFC 6902 operation applied in place to a document whose containers on the operation's paths are
 * already private copies (mutate.ts's copy-on-write `CowDocument`), with fast-json-patch's semantics and
 * error names (`OPERATION_PATH_UNRESOLVABLE`, …), which mutate.ts turns into messages.
 *
 * Hand-written rather than fast-json-patch's `applyOperation` because that walks values by recursion
 * (`hasUndefined` on every added value, `_areEquals` for `test`), deep-copies through
 * `JSON.parse(JSON.stringify(…))` (`copy`, the value a `move` overwrites, and the whole document to
 * validate each `move`/`copy`) without any cost, and builds its error messages from the whole document
 * pretty-printed. Here a `copy` is one metered copy (one unit per container and two per element or entry, so
 * repeated self-copies stop at the budget), nothing recurses, and errors carry only their name.
 */
import type { CostMeter } from './budget.js';
import { deepClone, deepEqual, defineOwn, type JsonObject } from './util/object.js';
import type { PatchOp } from './mutate.js';

/** A failed operation, named as fast-json-patch names it. */
export class PatchFault extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = reason;
  }
}

type Container = JsonObject | unknown[];

const hasOwn = Object.prototype.hasOwnProperty;

function isContainer(v: unknown): v is Container {
  return v !== null && typeof v === 'object';
}

/** fast-json-patch's `isInteger`: decimal digits only. */
function isIndex(key: string): boolean {
  return /^\d+$/.test(key);
}

/** Whether a value holds `undefined` anywhere (an explicit stack: any depth). */
function hasUndefined(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const at = stack.pop();
    if (at === undefined) return true;
    if (!isContainer(at)) continue;
    if (Array.isArray(at)) for (let i = 0; i < at.length; i++) stack.push(at[i]);
    else for (const key of Object.keys(at)) stack.push(at[key]);
  }
  return false;
}

/** The container holding the last segment of `segments`, or undefined when a step is missing. */
function parentOf(root: unknown, segments: readonly string[]): Container | undefined {
  let at: unknown = root;
  for (let i = 0; i < segments.length - 1; i++) {
    if (!isContainer(at)) return undefined;
    at = childOf(at, segments[i]!);
  }
  return isContainer(at) ? at : undefined;
}

/** An own member of a container (an array index in range, an own key), or undefined. */
function childOf(c: Container, key: string): unknown {
  if (Array.isArray(c)) return isIndex(key) ? c[Number(key)] : undefined;
  return hasOwn.call(c, key) ? c[key] : undefined;
}

function read(root: unknown, segments: readonly string[], missing: string): unknown {
  if (segments.length === 0) return root;
  const parent = parentOf(root, segments);
  const value = parent === undefined ? undefined : childOf(parent, segments[segments.length - 1]!);
  if (value === undefined) throw new PatchFault(missing);
  return value;
}

function add(root: unknown, segments: readonly string[], value: unknown): unknown {
  if (segments.length === 0) return value;
  const parent = parentOf(root, segments);
  if (parent === undefined) throw new PatchFault('OPERATION_PATH_CANNOT_ADD');
  const key = segments[segments.length - 1]!;
  if (Array.isArray(parent)) {
    if (key === '-') {
      parent.push(value);
      return root;
    }
    if (!isIndex(key)) throw new PatchFault('OPERATION_PATH_ILLEGAL_ARRAY_INDEX');
    const i = Number(key);
    if (i > parent.length) throw new PatchFault('OPERATION_VALUE_OUT_OF_BOUNDS');
    parent.splice(i, 0, value);
  } else defineOwn(parent, key, value);
  return root;
}

/** Removes the value at `segments` (which must exist) and returns it. */
function remove(root: unknown, segments: readonly string[]): unknown {
  const parent = parentOf(root, segments);
  const key = segments[segments.length - 1]!;
  if (parent === undefined || childOf(parent, key) === undefined) {
    if (Array.isArray(parent) && !isIndex(key)) throw new PatchFault('OPERATION_PATH_ILLEGAL_ARRAY_INDEX');
    throw new PatchFault('OPERATION_PATH_UNRESOLVABLE');
  }
  if (Array.isArray(parent)) return parent.splice(Number(key), 1)[0];
  const removed = parent[key];
  delete parent[key];
  return removed;
}

/**
 * Applies `op` at `at.path` (segments from the root; `at.from` for move and copy) and returns the new root (the
 * same object unless the operation replaced the root). Spends one unit per container and two per element
 * or entry a `copy` copies. Throws {@link PatchFault}; a failed `test` is `TEST_OPERATION_FAILED`.
 */
export function applyPatchOperation(root: unknown, op: { op: PatchOp; value?: unknown }, at: { path: readonly string[]; from: readonly string[] | undefined }, meter: CostMeter): unknown {
  const { path, from } = at;
  if (op.op === 'add' || op.op === 'replace' || op.op === 'test') {
    if (op.value === undefined) throw new PatchFault('OPERATION_VALUE_REQUIRED');
    if (hasUndefined(op.value)) throw new PatchFault('OPERATION_VALUE_CANNOT_CONTAIN_UNDEFINED');
  }
  switch (op.op) {
    case 'add':
      return add(root, path, op.value);
    case 'remove':
      if (path.length === 0) return null;
      remove(root, path);
      return root;
    case 'replace': {
      if (path.length === 0) return op.value;
      const parent = parentOf(root, path);
      const key = path[path.length - 1]!;
      if (parent === undefined || childOf(parent, key) === undefined) {
        if (Array.isArray(parent) && !isIndex(key)) throw new PatchFault('OPERATION_PATH_ILLEGAL_ARRAY_INDEX');
        throw new PatchFault('OPERATION_PATH_UNRESOLVABLE');
      }
      if (Array.isArray(parent)) parent[Number(key)] = op.value;
      else defineOwn(parent, key, op.value);
      return root;
    }
    case 'move': {
      const source = from ?? [];
      read(root, source, 'OPERATION_FROM_UNRESOLVABLE');
      if (source.length === 0) return root;
      const value = remove(root, source);
      return add(root, path, value);
    }
    case 'copy': {
      const value = read(root, from ?? [], 'OPERATION_FROM_UNRESOLVABLE');
      // Two units per element or entry copied (and one per container): a copied member is a new slot and,
      // for a container, a new object, so the units stay in step with the memory the cost model bounds.
      return add(root, path, deepClone(value, (n) => meter.spend(2 * n - 1)));
    }
    case 'test': {
      // A missing parent is an error; a missing member is a value the test does not expect (as fast-json-patch).
      const parent = path.length === 0 ? undefined : parentOf(root, path);
      if (path.length > 0 && parent === undefined) throw new PatchFault('OPERATION_PATH_UNRESOLVABLE');
      const key = path[path.length - 1]!;
      if (Array.isArray(parent) && key !== '-' && !isIndex(key)) throw new PatchFault('OPERATION_PATH_ILLEGAL_ARRAY_INDEX');
      const value = parent === undefined ? root : childOf(parent, key);
      if (value === undefined || !deepEqual(value, op.value)) throw new PatchFault('TEST_OPERATION_FAILED');
      return root;
    }
    default:
      throw new PatchFault('OPERATION_OP_INVALID');
  }
}
