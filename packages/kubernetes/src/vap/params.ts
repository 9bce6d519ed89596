/**
 * Parameter objects of ValidatingAdmissionPolicy bindings: where they come
 * from (documents of the policy set, and a lookup the host feeds, such as a
 * {@link ParamCache}), and which ones a binding uses for a request
 * (apiserver `generic.CollectParams`).
 */
import { compileLabelSelector, type CompiledLabelSelector } from '@verdict/core';
import { AdmissionError } from '../errors.js';
import { isObject, own, str } from '../read.js';
import { typeOf } from '../suggest.js';
import type { KubernetesObject } from '../types.js';
import type { ParamKind, ParamRef } from './types.js';

/** Which parameter objects a binding asks for: every object of a kind, in one namespace or in all. */
export interface ParamQuery {
  apiVersion: string;
  kind: string;
  /** The namespace to list; absent for cluster-scoped kinds (list them all). */
  namespace?: string;
}

/**
 * Parameter objects of one kind (in one namespace when `query.namespace` is
 * set), synchronously; `undefined` when none are known. verdict filters them
 * by the binding's `name` or `selector`.
 */
export type ParamLookup = (query: ParamQuery) => readonly KubernetesObject[] | undefined;

/** Kinds that exist only at cluster scope (a `paramRef.namespace` is refused for them, as the apiserver does). */
const CLUSTER_SCOPED = new Set(['Namespace', 'Node', 'PersistentVolume', 'ClusterRole', 'ClusterRoleBinding', 'StorageClass', 'CustomResourceDefinition', 'PriorityClass', 'IngressClass', 'RuntimeClass']);
/** Kinds that exist only in a namespace (objects of them without `metadata.namespace` are in `default`, as kubectl puts them). */
const NAMESPACED = new Set(['ConfigMap', 'Secret', 'Pod', 'Service', 'ServiceAccount', 'Deployment', 'Role', 'RoleBinding', 'LimitRange', 'ResourceQuota']);

const keyOf = (apiVersion: string, kind: string) => `${apiVersion}\u0000${kind}`;
const namespaceOf = (object: unknown) => str(own(own(object, 'metadata'), 'namespace'));
const nameOf = (object: unknown) => str(own(own(object, 'metadata'), 'name'));

function checkObject(object: unknown): KubernetesObject {
  if (!isObject(object) || typeof object['apiVersion'] !== 'string' || typeof object['kind'] !== 'string' || nameOf(object) === '') {
    throw new AdmissionError('INVALID_OPTIONS', `a parameter object needs apiVersion, kind and metadata.name (got ${typeOf(object)})`);
  }
  return object;
}

/**
 * An in-memory store of parameter objects, ready to pass as the webhook's
 * `params`. Feed it from watches (`apply`), lists (`replace`) or by hand
 * (`set`); objects are kept as given (treat them as immutable).
 */
export class ParamCache {
  readonly #objects = new Map<string, Map<string, KubernetesObject>>();

  constructor(objects: Iterable<KubernetesObject> = []) {
    for (const object of objects) this.set(object);
  }

  /** Number of objects held. */
  get size(): number {
    let n = 0;
    for (const objects of this.#objects.values()) n += objects.size;
    return n;
  }

  /** Stores (or replaces) an object, by apiVersion, kind, namespace and name. */
  set(object: KubernetesObject): this {
    const checked = checkObject(object);
    const key = keyOf(checked['apiVersion'] as string, checked['kind'] as string);
    let objects = this.#objects.get(key);
    if (!objects) this.#objects.set(key, (objects = new Map()));
    objects.set(`${namespaceOf(checked)}/${nameOf(checked)}`, checked);
    return this;
  }

  /** Forgets an object (matched by apiVersion, kind, namespace and name). */
  delete(object: KubernetesObject): boolean {
    const checked = checkObject(object);
    return this.#objects.get(keyOf(checked['apiVersion'] as string, checked['kind'] as string))?.delete(`${namespaceOf(checked)}/${nameOf(checked)}`) ?? false;
  }

  /** Applies a watch event: ADDED/MODIFIED store the object, DELETED forgets it, BOOKMARK/ERROR are ignored. */
  apply(event: { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR'; object: KubernetesObject }): void {
    if (event.type === 'BOOKMARK' || event.type === 'ERROR') return;
    if (event.type === 'DELETED') this.delete(event.object);
    else this.set(event.object);
  }

  /** Replaces every object of the kinds present in `objects` (e.g. the items of a LIST). */
  replace(objects: Iterable<KubernetesObject>): void {
    const list = [...objects].map(checkObject);
    for (const object of list) this.#objects.delete(keyOf(object['apiVersion'] as string, object['kind'] as string));
    for (const object of list) this.set(object);
  }

  /** The lookup to give `createAdmissionWebhook({params})`. */
  readonly lookup: ParamLookup = (query) => {
    const objects = this.#objects.get(keyOf(query.apiVersion, query.kind));
    if (!objects) return undefined;
    const all = [...objects.values()];
    return query.namespace === undefined ? all : all.filter((o) => namespaceOf(o) === query.namespace);
  };
}

/** Parameter objects of the policy set itself, by kind. */
export class ParamDocuments {
  readonly #byKind = new Map<string, KubernetesObject[]>();

  add(object: KubernetesObject): void {
    const key = keyOf(object['apiVersion'] as string, object['kind'] as string);
    const list = this.#byKind.get(key);
    if (list) list.push(object);
    else this.#byKind.set(key, [object]);
  }

  /** Objects of `kind` in the set (any namespace). */
  of(kind: ParamKind): readonly KubernetesObject[] {
    return this.#byKind.get(keyOf(kind.apiVersion, kind.kind)) ?? [];
  }

  /** Whether `object` is of a kind some policy takes as parameters. */
  static isParam(object: Readonly<Record<string, unknown>>, kinds: ReadonlySet<string>): boolean {
    return typeof object['apiVersion'] === 'string' && typeof object['kind'] === 'string' && kinds.has(keyOf(object['apiVersion'], object['kind']));
  }

  static key(kind: ParamKind): string {
    return keyOf(kind.apiVersion, kind.kind);
  }
}

type Scope = 'Cluster' | 'Namespaced' | 'Unknown';

/** The parameters one binding uses for one request: a list (ANDed), or a configuration error (failurePolicy decides). */
export type CollectedParams = { params: ReadonlyArray<KubernetesObject | null> } | { error: string };

/**
 * Resolves a binding's parameters for a request in `namespace` (`""` when
 * cluster-scoped), from the set's documents and the host's lookup (which wins
 * for the same namespace and name). A kind's scope is known for built-in
 * kinds; for others, objects without a namespace match any namespace.
 */
export function collectParams(kind: ParamKind | undefined, ref: ParamRef | undefined, namespace: string, sources: { documents: readonly KubernetesObject[]; lookup?: ParamLookup; selector?: CompiledLabelSelector }): CollectedParams {
  if (!kind || !ref) return { params: [null] };
  const inSet = sources.documents;
  const scope: Scope = CLUSTER_SCOPED.has(kind.kind) ? 'Cluster' : NAMESPACED.has(kind.kind) || inSet.some((o) => namespaceOf(o) !== '') ? 'Namespaced' : 'Unknown';
  if (scope === 'Cluster' && ref.namespace) return { error: 'paramRef.namespace must not be provided for a cluster-scoped `paramKind`' };
  const search = scope === 'Cluster' ? undefined : ref.namespace || namespace;
  if (scope === 'Namespaced' && !search) return { error: 'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources' };
  let looked: readonly KubernetesObject[] | undefined;
  try {
    looked = sources.lookup?.(search === undefined || search === '' ? { apiVersion: kind.apiVersion, kind: kind.kind } : { apiVersion: kind.apiVersion, kind: kind.kind, namespace: search });
  } catch (error) {
    return { error: `the params lookup failed for ${kind.kind}: ${(error as Error)?.message ?? String(error)}` };
  }
  const found = new Map<string, KubernetesObject>();
  const inScope = (object: KubernetesObject) => {
    if (!search) return true;
    const ns = namespaceOf(object);
    return ns === search || (ns === '' && (scope === 'Unknown' || search === 'default'));
  };
  for (const object of [...inSet, ...(looked ?? [])]) {
    if (!isObject(object) || !inScope(object)) continue;
    if (ref.name !== undefined && nameOf(object) !== ref.name) continue;
    if (ref.name === undefined && !(sources.selector ?? compileLabelSelector(ref.selector ?? {})).matches(own(own(object, 'metadata'), 'labels') as Record<string, string> | undefined ?? {})) continue;
    found.set(`${namespaceOf(object) || search || ''}/${nameOf(object)}`, object);
  }
  const params = [...found.keys()].sort().map((k) => found.get(k)!);  // with a paramRef, never null
  if (params.length === 0 && ref.parameterNotFoundAction === 'Deny') return { error: 'no params found for policy binding with `Deny` parameterNotFoundAction' };
  return { params };
}
