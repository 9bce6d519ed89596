/**
 * Namespace labels: AdmissionReviews do not carry them, so the host supplies a
 * lookup (sync or async). {@link NamespaceCache} is a ready lookup the host
 * feeds from a Namespace watch, with an optional fallback for misses.
 */
import { AdmissionError } from './errors.js';
import { isObject, NAMESPACE_NAME_LABEL, own, str, withNameLabel } from './read.js';
import { typeOf } from './suggest.js';
import type { KubernetesObject, LabelMap } from './types.js';

/** Labels of a namespace by name: a map, or `undefined`/`null` when the namespace does not exist. May be async. */
export type NamespaceLabelsLookup = (name: string) => Readonly<Record<string, string>> | null | undefined | PromiseLike<Readonly<Record<string, string>> | null | undefined>;

/** A Kubernetes watch event on Namespaces (`GET /api/v1/namespaces?watch=1`). */
export interface NamespaceWatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: KubernetesObject;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
}

function checked(value: unknown, name: string): LabelMap | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new AdmissionError('LOOKUP_FAILED', `the namespaceLabels lookup returned ${typeOf(value)} for namespace "${name}"; expected a map of labels, or undefined when the namespace does not exist`);
  // Labels from a NamespaceCache already carry the name label and are frozen: no copy.
  if (Object.isFrozen(value) && own(value, NAMESPACE_NAME_LABEL) === name) return value as LabelMap;
  return withNameLabel(value, name);
}

/**
 * Calls the lookup for `name`. Returns the labels (with `kubernetes.io/metadata.name`)
 * or `undefined` (namespace unknown), synchronously when the lookup is; a promise
 * otherwise, rejected after `timeoutMs`. Lookup failures throw or reject with
 * `AdmissionError` `LOOKUP_FAILED`.
 */
export function resolveNamespaceLabels(lookup: NamespaceLabelsLookup, name: string, timeoutMs: number): LabelMap | undefined | Promise<LabelMap | undefined> {
  let result: ReturnType<NamespaceLabelsLookup>;
  try {
    result = lookup(name);
  } catch (error) {
    throw new AdmissionError('LOOKUP_FAILED', `the namespaceLabels lookup failed for namespace "${name}": ${(error as Error)?.message ?? String(error)}`, { cause: error });
  }
  if (!isThenable(result)) return checked(result, name);
  return new Promise<LabelMap | undefined>((resolve, reject) => {
    const timer = setTimeout(() => reject(new AdmissionError('LOOKUP_FAILED', `the namespaceLabels lookup for namespace "${name}" timed out after ${timeoutMs} ms`)), timeoutMs);
    result.then(
      (value) => {
        clearTimeout(timer);
        try {
          resolve(checked(value, name));
        } catch (error) {
          reject(error as Error);
        }
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(new AdmissionError('LOOKUP_FAILED', `the namespaceLabels lookup failed for namespace "${name}": ${(error as Error)?.message ?? String(error)}`, { cause: error }));
      },
    );
  });
}

function nameOf(namespace: unknown): string {
  const name = str(own(own(namespace, 'metadata'), 'name'));
  if (name === '') throw new AdmissionError('INVALID_OPTIONS', `expected a Namespace object with metadata.name (got ${typeOf(namespace)})`);
  return name;
}

/**
 * An in-memory cache of namespace labels, ready to pass as the webhook's
 * `namespaceLabels`. Feed it from a watch (`apply`), a list (`replace`) or by
 * hand (`set`); a miss asks `fallback` (e.g. a direct API read), if given.
 */
export class NamespaceCache {
  readonly #labels = new Map<string, LabelMap>();
  readonly #fallback: NamespaceLabelsLookup | undefined;

  constructor(options: { fallback?: NamespaceLabelsLookup; namespaces?: Iterable<KubernetesObject> } = {}) {
    this.#fallback = options.fallback;
    if (options.namespaces) this.replace(options.namespaces);
  }

  /** Number of namespaces held. */
  get size(): number {
    return this.#labels.size;
  }

  /** The labels of `name` (with `kubernetes.io/metadata.name`), or `undefined`. Never asks the fallback. */
  get(name: string): LabelMap | undefined {
    return this.#labels.get(name);
  }

  /** Stores a frozen copy of `labels` for `name`. */
  set(name: string, labels: Readonly<Record<string, string>> | undefined): this {
    this.#labels.set(name, Object.freeze(withNameLabel(labels, name)));
    return this;
  }

  delete(name: string): boolean {
    return this.#labels.delete(name);
  }

  /** Applies a watch event: ADDED/MODIFIED store the Namespace's labels, DELETED forgets it, BOOKMARK/ERROR are ignored. */
  apply(event: NamespaceWatchEvent): void {
    if (event.type === 'BOOKMARK' || event.type === 'ERROR') return;
    const name = nameOf(event.object);
    if (event.type === 'DELETED') this.delete(name);
    else this.set(name, own(own(event.object, 'metadata'), 'labels') as Record<string, string> | undefined);
  }

  /** Replaces the whole content with a list of Namespace objects (e.g. the items of a LIST). */
  replace(namespaces: Iterable<KubernetesObject>): void {
    const next = new Map<string, LabelMap>();
    for (const namespace of namespaces) {
      const name = nameOf(namespace);
      next.set(name, Object.freeze(withNameLabel(own(own(namespace, 'metadata'), 'labels'), name)));
    }
    this.#labels.clear();
    for (const [name, labels] of next) this.#labels.set(name, labels);
  }

  /** The lookup to give `createAdmissionWebhook({namespaceLabels})`: the cache, then the fallback. */
  readonly lookup: NamespaceLabelsLookup = (name) => this.#labels.get(name) ?? this.#fallback?.(name);
}
