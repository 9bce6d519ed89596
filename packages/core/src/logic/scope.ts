/**
 * What a rule sees. At the top level of a rule (root mode) `var` reads the
 * input document, with `parameters` (the merged parameters) and, under
 * `forEach`, `element` laid over it. Inside `all`/`some`/`map`/… (item mode)
 * `var` reads the current item, as in json-logic-js; `input` always reads
 * the root.
 */
import { ownGet } from '../util/object.js';

export interface Scope {
  /** The input document (as earlier mutations left it). */
  input: unknown;
  parameters: unknown;
  element: unknown;
  hasElement: boolean;
  /** False for plain json-logic use: the root is `input` itself, with no overlay. */
  overlay: boolean;
}

export type Fn = (data: unknown, scope: Scope) => unknown;

const PROTOTYPES = [Object.prototype, Array.prototype, String.prototype, Number.prototype, Boolean.prototype, Function.prototype];

/** A key no built-in prototype defines can be read with plain property access. */
export function isSafeKey(key: string): boolean {
  for (const proto of PROTOTYPES) if (key in proto) return false;
  return true;
}

/** A compiled path walk with json-logic `var` semantics (`notFound` for a missing step; a final null stays null). */
export type Walker = (start: unknown, notFound: unknown) => unknown;

export function makeWalker(segments: readonly string[], from = 0): Walker {
  const segs = segments.slice(from);
  const safe = segs.map(isSafeKey);
  const n = segs.length;
  if (n === 0) return (start) => start;
  if (n === 1) {
    const k = segs[0]!;
    if (safe[0]) {
      return (cur, notFound) => {
        if (cur === null || cur === undefined) return notFound;
        const v = (cur as Record<string, unknown>)[k];
        return v === undefined ? notFound : v;
      };
    }
  }
  return (start, notFound) => {
    let cur = start;
    for (let i = 0; i < n; i++) {
      if (cur === null || cur === undefined) return notFound;
      cur = safe[i] ? (cur as Record<string, unknown>)[segs[i]!] : ownGet(cur, segs[i]!);
      if (cur === undefined) return notFound;
    }
    return cur;
  };
}

/** The first step of a root-mode read: `parameters`, `element` or an input key. */
export function rootStep(scope: Scope, first: string): unknown {
  if (scope.overlay) {
    if (first === 'parameters') return scope.parameters;
    if (first === 'element' && scope.hasElement) return scope.element;
  }
  return ownGet(scope.input, first);
}

/** A root-mode reader for a fixed path. */
export function makeRootReader(segments: readonly string[]): (scope: Scope, notFound: unknown) => unknown {
  if (segments.length === 0) return (scope) => rootObject(scope);
  const first = segments[0]!;
  const rest = makeWalker(segments, 1);
  return (scope, notFound) => {
    const head = rootStep(scope, first);
    if (head === undefined) return notFound;
    return rest(head, notFound);
  };
}

/** The root as one object (only materialised for `{"var": ""}` at the top level). */
export function rootObject(scope: Scope): unknown {
  if (!scope.overlay) return scope.input;
  const root: Record<string, unknown> = { ...(scope.input as Record<string, unknown>), parameters: scope.parameters };
  if (scope.hasElement) root['element'] = scope.element;
  return root;
}

/** Whether every step of the path is present (own property), even when the final value is null. */
export function pathExists(start: unknown, segments: readonly string[]): boolean {
  let cur = start;
  for (const seg of segments) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, seg)) return false;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return true;
}

export function rootExists(scope: Scope, segments: readonly string[]): boolean {
  if (segments.length === 0) return true;
  const first = segments[0]!;
  if (scope.overlay && (first === 'parameters' || (first === 'element' && scope.hasElement))) {
    return pathExists(first === 'parameters' ? scope.parameters : scope.element, segments.slice(1));
  }
  return pathExists(scope.input, segments);
}

/** json-logic truthiness: like JavaScript, except that an empty array is false. */
export function truthy(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : !!value;
}
