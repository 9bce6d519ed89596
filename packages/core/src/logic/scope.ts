/**
 * What a rule sees. At the top level of a rule (root mode) `var` reads the
 * input document, with `parameters` (the merged parameters) and, under
 * `forEach`, `element` laid over it. Inside `all`/`some`/`map`/… (item mode)
 * `var` reads the current item, as in json-logic-js; `input` always reads
 * the root.
 */
import type { CostMeter } from '../budget.js';
import { ownGet } from '../util/object.js';

export interface Scope {
  /** The input document (as earlier mutations left it). */
  input: unknown;
  parameters: unknown;
  element: unknown;
  hasElement: boolean;
  /** False for plain json-logic use: the root is `input` itself, with no overlay. */
  overlay: boolean;
  /** The evaluation's cost meter: work that grows with the input spends from it. */
  meter: CostMeter;
  /** CEL's state for this scope (conversions, activation, variables), made by the first CEL rule that runs. */
  cel?: object;
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
  const n = segs.length;
  if (n === 0) return (start) => start;
  if (segs.every(isSafeKey)) {
    // Unrolled for the common short paths; safe keys need no own-property check.
    const [k0, k1, k2, k3] = segs as [string, string, string, string];
    type R = Record<string, unknown>;
    switch (n) {
      case 1:
        return (cur, nf) => {
          if (cur === null || cur === undefined) return nf;
          const v = (cur as R)[k0];
          return v === undefined ? nf : v;
        };
      case 2:
        return (cur, nf) => {
          if (cur === null || cur === undefined) return nf;
          const a = (cur as R)[k0];
          if (a === null || a === undefined) return nf;
          const v = (a as R)[k1];
          return v === undefined ? nf : v;
        };
      case 3:
        return (cur, nf) => {
          if (cur === null || cur === undefined) return nf;
          const a = (cur as R)[k0];
          if (a === null || a === undefined) return nf;
          const b = (a as R)[k1];
          if (b === null || b === undefined) return nf;
          const v = (b as R)[k2];
          return v === undefined ? nf : v;
        };
      case 4:
        return (cur, nf) => {
          if (cur === null || cur === undefined) return nf;
          const a = (cur as R)[k0];
          if (a === null || a === undefined) return nf;
          const b = (a as R)[k1];
          if (b === null || b === undefined) return nf;
          const c = (b as R)[k2];
          if (c === null || c === undefined) return nf;
          const v = (c as R)[k3];
          return v === undefined ? nf : v;
        };
      default:
        break;
    }
  }
  const safe = segs.map(isSafeKey);
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

/** A root-mode reader for a fixed path, specialised at compile time on its first segment. */
export function makeRootReader(segments: readonly string[]): (scope: Scope, notFound: unknown) => unknown {
  if (segments.length === 0) return (scope) => rootObject(scope);
  const first = segments[0]!;
  const rest = makeWalker(segments, 1);
  const fromInput = (scope: Scope, notFound: unknown): unknown => {
    const head = ownGet(scope.input, first);
    return head === undefined ? notFound : rest(head, notFound);
  };
  if (first === 'parameters') {
    return (scope, notFound) => {
      if (!scope.overlay) return fromInput(scope, notFound);
      const head = scope.parameters;
      return head === undefined ? notFound : rest(head, notFound);
    };
  }
  if (first === 'element') {
    return (scope, notFound) => {
      if (!scope.overlay || !scope.hasElement) return fromInput(scope, notFound);
      const head = scope.element;
      return head === undefined ? notFound : rest(head, notFound);
    };
  }
  if (isSafeKey(first)) {
    return (scope, notFound) => {
      const input = scope.input;
      const head = input === null || input === undefined ? undefined : (input as Record<string, unknown>)[first];
      return head === undefined ? notFound : rest(head, notFound);
    };
  }
  return fromInput;
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
