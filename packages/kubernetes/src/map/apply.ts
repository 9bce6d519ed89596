/**
 * `patchType: ApplyConfiguration`: the expression's object merged into the
 * object as the API server merges it (structured-merge-diff `Merge`, after its
 * `validatePatch`): objects and maps merge key by key, list-maps merge their
 * elements by key (new elements where the configuration puts them, untouched
 * ones kept in place), sets take the union, and an atomic list, struct or map
 * anywhere in the configuration is refused ("may not mutate atomic arrays,
 * maps or structs"). The operations are the RFC 6902 difference between the
 * object before and after (core's `diffPatch`).
 */
import { diffPatch, isForbiddenKey, type PatchOperation } from '@verdict/core';
import { isObject } from '../read.js';
import { typeOf } from '../suggest.js';
import { fieldOf, schemaOf, type SchemaNode } from './schema.js';

type Json = Record<string, unknown>;

/** The CEL type name of a JSON value (for messages). */
function celType(value: unknown): string {
  if (value === null) return 'null_type';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'double';
  return typeof value === 'boolean' ? 'bool' : typeof value === 'string' ? 'string' : 'map';
}

/**
 * Paths (`.spec.selector`, `.spec.initContainers[0].args`) of atomic parts of the configuration, in document
 * order. An explicit stack: a configuration copies input, which may nest as deep as the API server accepts.
 */
function atomics(configuration: unknown, schema: SchemaNode, out: string[]): void {
  const stack: Array<[unknown, SchemaNode, string]> = [[configuration, schema, '']];
  while (stack.length > 0) {
    const [value, node, path] = stack.pop()!;
    const children: Array<[unknown, SchemaNode, string]> = [];
    if (isObject(value)) {
      if (node.atomic) out.push(path);
      // Scalars are never atomic parts: only objects and lists are walked.
      for (const key of Object.keys(value)) {
        const child = value[key];
        if (typeof child === 'object' && child !== null) children.push([child, fieldOf(node, key), `${path}.${key}`]);
      }
    } else if (Array.isArray(value)) {
      if (node.list === undefined || node.atomic) out.push(path);
      else value.forEach((item, i) => children.push([item, node.items ?? {}, `${path}[${i}]`]));
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
}

function keyOf(node: SchemaNode, item: unknown, path: string): string {
  const list = node.list!;
  if (list === 'set') return JSON.stringify(item);
  if (!isObject(item)) throw new Error(`${path}: an element of an associative list must be an object (got ${typeOf(item)})`);
  return JSON.stringify(list.keys.map((k) => {
    const v = item[k] ?? list.defaults?.[k];
    if (v === undefined) throw new Error(`${path}: associative list with keys has an element that omits key field "${k}" (and doesn't have default value)`);
    return v;
  }));
}

/**
 * Merges list `rhs` into `lhs` by element identity, in structured-merge-diff's order: left elements the
 * right does not name stay where they are, right elements come in the right's order (merged with their
 * left counterpart); duplicates on the left that the right names collapse into one.
 */
function mergeList(lhs: readonly unknown[], rhs: readonly unknown[], node: SchemaNode, path: string): unknown[] {
  const lk = lhs.map((x) => keyOf(node, x, path));
  const rk = rhs.map((x) => keyOf(node, x, path));
  const inRight = new Map<string, number>();
  rk.forEach((k, i) => {
    if (inRight.has(k)) throw new Error(`${path}: duplicate entries for key ${k}`);
    inRight.set(k, i);
  });
  const inLeft = new Map<string, number>();
  lk.forEach((k, i) => inLeft.has(k) || inLeft.set(k, i));
  const shared = rk.filter((k) => inLeft.has(k));
  let next = 0;
  const merged = new Set<string>();
  const item = (l: unknown, r: unknown, i: number) => (node.list === 'set' ? r : mergeValue(l, r, node.items ?? {}, `${path}[${i}]`));
  const out: unknown[] = [];
  let l = 0;
  let r = 0;
  while (l < lk.length || r < rk.length) {
    if (l < lk.length && r < rk.length) {
      if (lk[l] === rk[r]) {
        out.push(item(lhs[l], rhs[r], r));
        merged.add(rk[r]!);
        if (shared[next] === rk[r]) next++;
        l++;
        r++;
        continue;
      }
      if (inRight.has(lk[l]!) && shared[next] !== undefined && shared[next] !== lk[l]) {
        l++;
        continue;
      }
    }
    if (l < lk.length && (!inRight.has(lk[l]!) || merged.has(lk[l]!))) {
      if (!inRight.has(lk[l]!)) out.push(lhs[l]);
      l++;
      continue;
    }
    if (r < rk.length) {
      const key = rk[r]!;
      merged.add(key);
      const at = inLeft.get(key);
      out.push(item(at === undefined ? undefined : lhs[at], rhs[r], r));
      if (shared[next] === key) next++;
      r++;
    }
  }
  return out;
}

/** An object being merged: `out` (a copy of the left side) receives the right side's entries. */
interface Pending {
  out: Json;
  rhs: Json;
  node: SchemaNode;
  path: string;
}

/**
 * Merges `rhs` into `lhs`. Objects are merged with an explicit stack (a configuration copies input, which
 * may nest as deep as the API server accepts); lists recurse only as deep as the schema names list types.
 */
function mergeValue(lhs: unknown, rhs: unknown, node: SchemaNode, path: string): unknown {
  const pending: Pending[] = [];
  const root = mergeStep(lhs, rhs, { node, path }, pending);
  while (pending.length > 0) {
    const { out, rhs: right, node: at, path: where } = pending.pop()!;
    for (const key of Object.keys(right)) {
      if (isForbiddenKey(key)) throw new Error(`${where}.${key}: key "${key}" is not allowed`);
      const value = right[key];
      // A scalar replaces whatever was there (mergeStep's answer for it), without a path or schema lookup.
      if (typeof value !== 'object' || value === null) {
        out[key] = value;
        continue;
      }
      out[key] = mergeStep(out[key], value, { node: fieldOf(at, key), path: `${where}.${key}` }, pending);
    }
  }
  return root;
}

/** One merge step: the merged value, or for an object a copy of the left side whose entries are merged later (`pending`). */
function mergeStep(lhs: unknown, rhs: unknown, at: { node: SchemaNode; path: string }, pending: Pending[]): unknown {
  const { node, path } = at;
  // Only reached without the atomic guard (server-side apply): an atomic part is replaced whole.
  if (node.atomic || (Array.isArray(rhs) && node.list === undefined)) return rhs;
  if (isObject(rhs)) {
    const out: Json = isObject(lhs) ? { ...lhs } : {};
    pending.push({ out, rhs, node, path });
    return out;
  }
  if (Array.isArray(rhs)) return mergeList(Array.isArray(lhs) ? lhs : [], rhs, node, path);
  return rhs;
}

/**
 * The object after merging `configuration` into it (never modifies either). `atomicParts: 'replace'` drops the
 * API server's guard and replaces atomic parts whole, as server-side apply does (Kyverno's `useServerSideApply`).
 */
export function mergeApplyConfiguration(object: Json, configuration: unknown, atomicParts: 'refuse' | 'replace' = 'refuse'): Json {
  if (!isObject(configuration)) throw new Error(`must evaluate to Object but got ${celType(configuration)}`);
  const schema = schemaOf(object);
  const found: string[] = [];
  if (atomicParts === 'refuse') atomics(configuration, schema, found);
  if (found.length > 0) throw new Error(`error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${found.join(', ')}`);
  try {
    return mergeValue(object, configuration, schema, '') as Json;
  } catch (error) {
    throw new Error(`error applying patch: failed to merge patch: ${(error as Error).message}`, { cause: error });
  }
}

/** core's patch type `ApplyConfiguration`: the operations that turn the object into the merged one. */
export function applyConfiguration(value: unknown, target: unknown): readonly PatchOperation[] {
  const object = isObject(target) ? target : {};
  return diffPatch(object, mergeApplyConfiguration(object, value));
}

/** The patch type of an apply configuration merged as server-side apply merges it (atomic parts replaced). */
export function serverSideApplyConfiguration(value: unknown, target: unknown): readonly PatchOperation[] {
  const object = isObject(target) ? target : {};
  return diffPatch(object, mergeApplyConfiguration(object, value, 'replace'));
}
