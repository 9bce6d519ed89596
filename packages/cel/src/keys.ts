/**
 * The keys that could reach an object's prototype when written or read as plain properties. Every package
 * refuses them (or reads them as own data only) in documents, parameters, patches and input: one list here,
 * where the CEL package (a leaf) and the packages built on it find it.
 */

/** `__proto__`, `constructor` and `prototype`. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Whether `key` is one of {@link FORBIDDEN_KEYS}: refused in documents and patches, never followed to a prototype. */
export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN_KEYS.has(key);
}
