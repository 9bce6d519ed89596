/**
 * The inventory: the other objects a referential policy reads (unique Ingress
 * hosts, unique Service selectors), in Gatekeeper's `data.inventory` layout.
 * AdmissionReviews carry one object, so the host feeds an {@link InventoryCache}
 * (from an informer or a watch, as it feeds a `NamespaceCache`) and the webhook
 * puts its `data` on every input as `inventory`. `verdict audit` fills one from
 * the audited objects; suites from a case's `inventory:` list.
 */
import { AdmissionError } from './errors.js';
import { isObject, own, str } from './read.js';
import { typeOf } from './suggest.js';
import type { KubernetesObject } from './types.js';

/** Objects by `[apiVersion][kind][name]`. */
export type InventoryTree = Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, KubernetesObject>>>>>>;

/**
 * Gatekeeper's `data.inventory`: `cluster[apiVersion][kind][name]` for
 * cluster-scoped objects, `namespace[namespace][apiVersion][kind][name]` for
 * namespaced ones. Keys are the objects' own strings (`networking.k8s.io/v1`,
 * `Ingress`); policies read them with `get` and a list of segments. Every
 * level is a null-prototype object: names such as `__proto__` are plain keys.
 */
export interface Inventory {
  readonly cluster: InventoryTree;
  readonly namespace: Readonly<Record<string, InventoryTree>>;
}

type Tree = Record<string, Record<string, Record<string, KubernetesObject>>>;

interface Key {
  namespace: string;
  apiVersion: string;
  kind: string;
  name: string;
}

function map<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

function child<T>(parent: Record<string, T>, key: string, make: () => T): T {
  let value = parent[key];
  if (value === undefined) parent[key] = value = make();
  return value;
}

function keyOf(object: unknown, namespace: string | undefined): Key {
  const metadata = own(object, 'metadata');
  const key = { apiVersion: str(own(object, 'apiVersion')), kind: str(own(object, 'kind')), name: str(own(metadata, 'name')) };
  if (!isObject(object) || !key.apiVersion || !key.kind || !key.name) {
    throw new AdmissionError('INVALID_OPTIONS', `an inventory object needs apiVersion, kind and metadata.name (got ${isObject(object) ? `${key.kind || 'an object without kind'} "${key.name}"` : typeOf(object)})`);
  }
  return { ...key, namespace: namespace ?? str(own(metadata, 'namespace')) };
}

/**
 * A live inventory to give `createAdmissionWebhook({inventory})`. Holds the
 * objects it is given (no copies: do not mutate them afterwards). Feed it from
 * a watch (`apply`), a list (`replace`) or by hand (`set`, `delete`).
 */
export class InventoryCache {
  readonly #cluster: Tree = map();
  readonly #namespaces = map<Tree>();
  #size = 0;
  /** The inventory policies see, live: every change shows in the next review. */
  readonly data: Inventory = Object.freeze({ cluster: this.#cluster, namespace: this.#namespaces });

  /** `objects` are `set` in order (each in its own `metadata.namespace`). */
  constructor(options: { objects?: Iterable<KubernetesObject> } = {}) {
    if (options.objects) this.replace(options.objects);
  }

  /** Number of objects held. */
  get size(): number {
    return this.#size;
  }

  /**
   * Stores `object` under its apiVersion, kind and name, in `namespace`
   * (default its `metadata.namespace`; `""` for cluster-scoped objects),
   * replacing an object with the same keys. Throws `AdmissionError`
   * (`INVALID_OPTIONS`) when apiVersion, kind or metadata.name is missing.
   */
  set(object: KubernetesObject, namespace?: string): this {
    const key = keyOf(object, namespace);
    const tree = key.namespace === '' ? this.#cluster : child(this.#namespaces, key.namespace, () => map());
    const names = child(child(tree, key.apiVersion, () => map()), key.kind, () => map());
    if (names[key.name] === undefined) this.#size++;
    names[key.name] = object;
    return this;
  }

  /** Forgets the object with the keys of `object` (in `namespace`, as for `set`); true when one was held. */
  delete(object: KubernetesObject, namespace?: string): boolean {
    const key = keyOf(object, namespace);
    const tree = key.namespace === '' ? this.#cluster : this.#namespaces[key.namespace];
    const kinds = tree?.[key.apiVersion];
    const names = kinds?.[key.kind];
    if (!tree || !kinds || !names || names[key.name] === undefined) return false;
    delete names[key.name];
    this.#size--;
    // Empty levels are removed, so a policy iterating the inventory never walks dead branches.
    if (Object.keys(names).length === 0) delete kinds[key.kind];
    if (Object.keys(kinds).length === 0) delete tree[key.apiVersion];
    if (key.namespace !== '' && Object.keys(tree).length === 0) delete this.#namespaces[key.namespace];
    return true;
  }

  /** The object stored under these keys (`namespace` `""` or absent: cluster-scoped), or `undefined`. */
  get(apiVersion: string, kind: string, name: string, namespace = ''): KubernetesObject | undefined {
    const tree = namespace === '' ? this.#cluster : this.#namespaces[namespace];
    return tree?.[apiVersion]?.[kind]?.[name];
  }

  /** Applies a watch or informer event: ADDED/MODIFIED store the object, DELETED forgets it, BOOKMARK/ERROR are ignored. */
  apply(event: { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR'; object: KubernetesObject }): void {
    if (event.type === 'BOOKMARK' || event.type === 'ERROR') return;
    if (event.type === 'DELETED') this.delete(event.object);
    else this.set(event.object);
  }

  /** Replaces the whole content with `objects` (e.g. the items of a LIST). All or nothing: an invalid object changes nothing. */
  replace(objects: Iterable<KubernetesObject>): void {
    const list = [...objects];
    for (const object of list) keyOf(object, undefined);
    this.clear();
    for (const object of list) this.set(object);
  }

  /** Forgets every object. */
  clear(): void {
    for (const key of Object.keys(this.#cluster)) delete this.#cluster[key];
    for (const key of Object.keys(this.#namespaces)) delete this.#namespaces[key];
    this.#size = 0;
  }
}

/** The webhook's `inventory` option: a cache, or a function returning the inventory for each review. */
export type InventorySource = InventoryCache | (() => Inventory | undefined);

/** Normalises the option to a function; throws `AdmissionError` (`INVALID_OPTIONS`) for anything else. */
export function inventoryProvider(value: unknown): (() => Inventory | undefined) | undefined {
  if (value === undefined) return undefined;
  if (value instanceof InventoryCache) return () => value.data;
  if (typeof value !== 'function') throw new AdmissionError('INVALID_OPTIONS', `inventory must be an InventoryCache or a function () => inventory (got ${typeOf(value)})`);
  return value as () => Inventory | undefined;
}
