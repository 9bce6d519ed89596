/** Defensive readers over the input document: selectors may be given any object. */
import type { GroupVersionKind, GroupVersionResource, LabelMap } from './types.js';

const hasOwn = Object.prototype.hasOwnProperty;

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** An own property, or `undefined`. */
export function own(container: unknown, key: string): unknown {
  return isObject(container) && hasOwn.call(container, key) ? container[key] : undefined;
}

/*
 * The readers below (and the selectors' hot paths) read fixed names of the
 * input document and of Kubernetes objects (`kind`, `group`, `namespace`,
 * `object`, `metadata`, `labels`, …) as literal property reads, which V8
 * caches at each call site; `own` (a read by a variable key and a
 * `hasOwnProperty` call) costs several times more, and a review makes dozens
 * of these reads. None of these names is a property of `Object.prototype`,
 * so a plain read cannot reach an inherited member. Keys that come from
 * policies or data (label keys, paths) still go through `own`.
 */

/** `metadata` of an object, when it is an object. */
export function metadataOf(object: unknown): Record<string, unknown> | undefined {
  if (!isObject(object)) return undefined;
  const metadata = object['metadata'];
  return isObject(metadata) ? metadata : undefined;
}

export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** `metadata.<key>` of an object as a string map (`undefined` when absent or not a map). */
export function metadataMap(object: unknown, key: 'labels' | 'annotations'): Record<string, unknown> | undefined {
  const metadata = metadataOf(object);
  if (metadata === undefined) return undefined;
  const map = key === 'labels' ? metadata['labels'] : metadata['annotations'];
  return isObject(map) ? map : undefined;
}

export const EMPTY: LabelMap = Object.freeze({});

/** The label every namespace carries: the apiserver sets it to the namespace's name. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

const withName = new WeakMap<object, { name: string; labels: LabelMap }>();

/**
 * A namespace's labels with `kubernetes.io/metadata.name` set. The source is
 * never modified: labels that already carry the name are used as they are,
 * and copies of frozen sources are cached per source object (a lookup that
 * returns the same frozen map for every request costs one WeakMap hit). A
 * source that is not frozen may change in place: it is copied each time.
 */
export function withNameLabel(labels: unknown, name: string): LabelMap {
  const cacheable = isObject(labels) && Object.isFrozen(labels);
  if (isObject(labels)) {
    if (labels[NAMESPACE_NAME_LABEL] === name && hasOwn.call(labels, NAMESPACE_NAME_LABEL)) return labels as LabelMap;
    const cached = cacheable ? withName.get(labels) : undefined;
    if (cached !== undefined && cached.name === name) return cached.labels;
  }
  const out: Record<string, string> = {};
  if (isObject(labels)) {
    for (const key of Object.keys(labels)) {
      const value = labels[key];
      if (typeof value !== 'string') continue;
      if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      else out[key] = value;
    }
  }
  out[NAMESPACE_NAME_LABEL] = name;
  if (cacheable) withName.set(labels, { name, labels: out });
  return out;
}

/** A fresh `{group, version, kind}` read from a value of that shape (`''` for what is missing or not a string). */
export function groupVersionKind(value: unknown): GroupVersionKind {
  if (!isObject(value)) return { group: '', version: '', kind: '' };
  return { group: str(value['group']), version: str(value['version']), kind: str(value['kind']) };
}

/** A fresh `{group, version, resource}` read from a value of that shape (`''` for what is missing or not a string). */
export function groupVersionResource(value: unknown): GroupVersionResource {
  if (!isObject(value)) return { group: '', version: '', resource: '' };
  return { group: str(value['group']), version: str(value['version']), resource: str(value['resource']) };
}

/** The request's kind, as the input holds it. */
export function kindOf(input: unknown): GroupVersionKind {
  return groupVersionKind(isObject(input) ? input['kind'] : undefined);
}

/** Gatekeeper `IsNamespace`: kind `Namespace` in the core group. */
export function isNamespaceKind(input: unknown): boolean {
  const kind = isObject(input) ? input['kind'] : undefined;
  return isObject(kind) && kind['kind'] === 'Namespace' && str(kind['group']) === '';
}

/** A string field of the input document (`namespace`, `name`, …), or `''`. */
export function inputString(input: unknown, key: 'namespace' | 'name' | 'operation' | 'subResource'): string {
  if (!isObject(input)) return '';
  switch (key) {
    case 'namespace':
      return str(input['namespace']);
    case 'name':
      return str(input['name']);
    case 'operation':
      return str(input['operation']);
    default:
      return str(input['subResource']);
  }
}

/** `input.object` or `input.oldObject`. */
export function inputObject(input: unknown, key: 'object' | 'oldObject'): unknown {
  if (!isObject(input)) return undefined;
  return key === 'object' ? input['object'] : input['oldObject'];
}

/** One field of the request's resource (`input.resource.<key>`), or `''`; allocates nothing (selectors' hot path). */
export function resourceField(input: unknown, key: 'group' | 'version' | 'resource'): string {
  const r = isObject(input) ? input['resource'] : undefined;
  if (!isObject(r)) return '';
  return str(key === 'group' ? r['group'] : key === 'version' ? r['version'] : r['resource']);
}

/** The request's resource, as the input holds it. */
export function resourceOf(input: unknown): GroupVersionResource {
  return groupVersionResource(isObject(input) ? input['resource'] : undefined);
}

/** Go `unicode.IsControl`: C0 controls, DEL and C1 controls. */
export function isControlCode(code: number): boolean {
  return code <= 0x1f || (code >= 0x7f && code <= 0x9f);
}

/** `text` with every control character replaced by a space. */
export function replaceControls(text: string): string {
  let out = '';
  for (const ch of text) out += isControlCode(ch.codePointAt(0)!) ? ' ' : ch;
  return out;
}

/** Whether `text` holds a control character. */
export function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (isControlCode(text.charCodeAt(i))) return true;
  return false;
}

/**
 * The characters of `text` as Go counts them (runes, CEL's string size): code points, a surrogate pair being one.
 * Counted in place, without the array `[...text]` would build.
 */
export function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}
