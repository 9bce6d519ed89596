/**
 * The API server's defaulting of built-in kinds, before any admission webhook or policy sees the
 * object: a Deployment without `spec.replicas` arrives with 1, a container without
 * `imagePullPolicy` with `IfNotPresent` or `Always`... The table is generated from Kubernetes' own
 * defaulters (scripts/kubernetes-defaults). The input is never changed: the objects along the
 * defaulted paths are copied (shallowly), the rest is shared. Linear in the object's size; no
 * recursion over the input.
 */
import { isObject } from '../read.js';
import { DEFAULTING } from './table.js';
import type { DefaultCondition, DefaultedType, DefaultStep, DefaultingTable, Segments } from './types.js';

type Container = Record<string, unknown> | unknown[];

const hasOwn = Object.prototype.hasOwnProperty;

function get(container: unknown, key: string): unknown {
  if (Array.isArray(container)) return /^\d+$/.test(key) ? container[Number(key)] : undefined;
  return isObject(container) && hasOwn.call(container, key) ? container[key] : undefined;
}

function put(container: Container, key: string, value: unknown): void {
  Object.defineProperty(container, key, { value, enumerable: true, writable: true, configurable: true });
}

function read(base: unknown, path: Segments): unknown {
  let value = base;
  for (const key of path) value = get(value, key);
  return value;
}

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isObject(value)) return Object.keys(value).length === 0;
  return value === '' || value === 0 || value === false;
}

function holds(c: DefaultCondition, value: unknown): boolean {
  if (c.absent) return value === undefined || value === null;
  if (c.present) return value !== undefined && value !== null;
  if (c.notEmpty) return !isEmpty(value);
  if (c.onlyKeys) return isObject(value) && Object.keys(value).every((k) => c.onlyKeys!.includes(k));
  if (c.oneOf) return c.oneOf.includes(value);
  return value === c.equals;
}

/** `latest` when the image's tag is "latest", or it has neither tag nor digest (as `parsers.ParseImageName` reads it). */
function pullPolicy(image: unknown, step: DefaultStep): string | undefined {
  if (typeof image !== 'string' || image === '') return step.otherwise;
  const at = image.indexOf('@');
  const name = at < 0 ? image : image.slice(0, at);
  const colon = name.indexOf(':', name.lastIndexOf('/') + 1);
  const tag = colon >= 0 ? name.slice(colon + 1) : at < 0 ? 'latest' : '';
  return tag === 'latest' ? step.latest : step.otherwise;
}

/** Applies one table to one object; the copies it makes are remembered so each is made once. */
class Defaulter {
  readonly #copied = new WeakSet<object>();

  constructor(readonly root: Record<string, unknown>) {
    this.#copied.add(root);
  }

  /** `parent[key]` as a copy this run owns (made on first use), or `undefined` when it is not a map or a list. */
  #writable(parent: Container, key: string): Container | undefined {
    const child = get(parent, key);
    if (!isContainer(child)) return undefined;
    if (this.#copied.has(child)) return child;
    const copy: Container = Array.isArray(child) ? [...(child as unknown[])] : { ...child };
    this.#copied.add(copy);
    put(parent, key, copy);
    return copy;
  }

  /** Every struct at `path` from `base` (copies this run owns); `*` walks the elements of a list. */
  each(base: Container, path: Segments): Container[] {
    let frontier: Container[] = [base];
    for (const key of path) {
      const next: Container[] = [];
      for (const c of frontier) {
        if (key !== '*') {
          const child = this.#writable(c, key);
          if (child) next.push(child);
        } else if (Array.isArray(c)) {
          for (let i = 0; i < c.length; i++) {
            const child = this.#writable(c, String(i));
            if (child) next.push(child);
          }
        }
      }
      frontier = next;
    }
    return frontier;
  }

  /** The map holding the last segment of `path`, made (as `{}`) where absent when `create`; `undefined` when something else is in the way. */
  #parent(base: Container, path: Segments, create: boolean): Record<string, unknown> | undefined {
    let current: Container = base;
    for (let i = 0; i < path.length - 1; i++) {
      const key = path[i]!;
      const existing = get(current, key);
      if (existing === undefined || existing === null) {
        if (!create || Array.isArray(current)) return undefined;
        const made: Record<string, unknown> = {};
        this.#copied.add(made);
        put(current, key, made);
        current = made;
        continue;
      }
      const child = this.#writable(current, key);
      if (!child) return undefined;
      current = child;
    }
    return isObject(current) ? current : undefined;
  }

  step(struct: Container, step: DefaultStep): void {
    for (const target of step.in ? this.each(struct, step.in) : [struct]) {
      if (step.if && !step.if.every((c) => holds(c, read(c.item ? target : struct, c.path)))) continue;
      if (step.remove) {
        const parent = this.#parent(target, step.remove, false);
        if (parent) delete parent[step.remove[step.remove.length - 1]!];
        continue;
      }
      this.#set(target, step);
    }
  }

  #set(target: Container, step: DefaultStep): void {
    const path = step.set!;
    const key = path[path.length - 1]!;
    // Nothing to set is known before making the intermediate maps.
    const value = this.#valueFor(target, step);
    if (value === undefined) return;
    const current = read(target, path);
    const unset = current === undefined || current === null || (step.zero === true && isEmpty(current));
    if (!unset && !step.force && !step.mergeFrom) return;
    const parent = this.#parent(target, path, true);
    if (!parent) return;
    if (step.mergeFrom) {
      const source = value as Record<string, unknown>;
      const into = isObject(current) ? (this.#writable(parent, key) as Record<string, unknown>) : {};
      for (const k of Object.keys(source)) if (!hasOwn.call(into, k)) put(into, k, source[k]);
      if (into !== current) put(parent, key, into);
      return;
    }
    put(parent, key, value);
  }

  #valueFor(target: Container, step: DefaultStep): unknown {
    if (step.value !== undefined) return isContainer(step.value) ? (JSON.parse(JSON.stringify(step.value)) as unknown) : step.value;
    if (step.from) {
      const value = read(target, step.from);
      if (value === undefined || value === null) return undefined;
      return Array.isArray(value) ? [...(value as unknown[])] : isObject(value) ? { ...value } : value;
    }
    if (step.mergeFrom) {
      const source = read(target, step.mergeFrom);
      return isObject(source) && Object.keys(source).length > 0 ? source : undefined;
    }
    if (step.imagePullPolicyOf) return pullPolicy(read(target, step.imagePullPolicyOf), step);
    return undefined;
  }
}

/** Runs `node` on `structs`: its defaulter's steps, then the types at its fields (the table's depth, not the input's, bounds the recursion). */
function visit(defaulter: Defaulter, table: DefaultingTable, node: DefaultedType, structs: readonly Container[]): void {
  const steps = node.defaulter === undefined ? [] : (table.functions[node.defaulter] ?? []);
  for (const struct of structs) {
    if (!isObject(struct)) continue;
    for (const step of steps) defaulter.step(struct, step);
  }
  for (const [path, type] of node.fields) {
    const child = table.types[type];
    if (!child) continue;
    const next = structs.flatMap((s) => defaulter.each(s, path)).filter(isObject);
    if (next.length) visit(defaulter, table, child, next);
  }
}

/**
 * `object` as the API server stores it after defaulting (apps/v1 Deployment, v1 Pod, Service,
 * batch/v1 Job, ...: every kind of the table); other kinds, and values that are not objects,
 * are returned as they are. The input is not changed.
 */
export function applyApiServerDefaults<T>(object: T, table: DefaultingTable = DEFAULTING): T {
  if (!isObject(object)) return object;
  const apiVersion = object['apiVersion'];
  const kind = object['kind'];
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return object;
  const key = `${apiVersion} ${kind}`;
  const node = hasOwn.call(table.kinds, key) ? table.kinds[key] : undefined;
  if (!node) return object;
  const root = { ...object };
  visit(new Defaulter(root), table, node, [root]);
  return root as T;
}
