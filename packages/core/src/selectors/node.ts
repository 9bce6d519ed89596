/** Compiled selectors: closures that return `undefined` on a match, or the leaf that failed. */
import type { Scope } from '../logic/scope.js';
import type { IndexHint, SelectionKey } from './types.js';

/**
 * A necessary condition on one label of a label map, kept for static analysis
 * (lint): the label at `path` must be one of `in`, must not be one of `notIn`
 * (or be absent), or must / must not exist.
 */
export interface Fact {
  readonly path: readonly string[];
  readonly in?: readonly string[];
  readonly notIn?: readonly string[];
  readonly exists?: boolean;
  /** How the condition reads, e.g. `namespaceLabels: team in (a,b)`. */
  readonly text: string;
}

export interface SelectorNode {
  /** JSON pointer of this selector in its document. */
  readonly at: string;
  /** Human description, e.g. `namespaceSelector: team in (a,b)`. */
  readonly text: string;
  /** Necessary conditions usable by the policy index. */
  readonly hints: readonly IndexHint[];
  /** `undefined` when the input matches; otherwise the (leaf) node that did not. May throw. */
  readonly test: (scope: Scope) => SelectorNode | undefined;
  /** Conditions every matching input satisfies (label requirements), for lint. */
  readonly facts?: readonly Fact[];
  /** The answer depends only on these values of the input (see {@link SelectionKey}). */
  readonly key?: SelectionKey;
}

/** A selector reported as one part: it fails as itself. `known` carries its index hints and lint facts. */
export function leaf(at: string, text: string, matches: (scope: Scope) => boolean, known: { hints?: readonly IndexHint[]; facts?: readonly Fact[]; key?: SelectionKey | undefined } = {}): SelectorNode {
  const node: SelectorNode = {
    at, text, hints: known.hints ?? [], test: (scope) => (matches(scope) ? undefined : node), ...(known.facts ? { facts: known.facts } : {}), ...keyed(known.key),
  };
  return node;
}

export const MATCH_ALL: SelectorNode = { at: '', text: '(everything)', hints: [], test: () => undefined };

/**
 * The key function every node shares, when each one has the same key or is constant
 * (MATCH_ALL, MATCH_NONE); `undefined` when one has none, two differ, or all are constant.
 */
export function sharedKey(nodes: readonly SelectorNode[]): SelectionKey | undefined {
  let key: SelectionKey | undefined;
  for (const node of nodes) {
    if (node === MATCH_ALL || node === MATCH_NONE) continue;
    if (node.key === undefined || (key !== undefined && node.key !== key)) return undefined;
    key = node.key;
  }
  return key;
}

/** The `key` member of a node, when it has one. */
function keyed(key: SelectionKey | undefined): { key?: SelectionKey } {
  return key ? { key } : {};
}

export function allOf(at: string, children: readonly SelectorNode[]): SelectorNode {
  const parts = children.filter((c) => c !== MATCH_ALL);
  if (parts.length === 0) return MATCH_ALL;
  if (parts.length === 1) return parts[0]!;
  const hints = parts.flatMap((c) => c.hints);
  const facts = parts.flatMap((c) => c.facts ?? []);
  const text = parts.map((c) => c.text).join(' and ');
  const key = sharedKey(parts);
  if (parts.length === 2) {
    const [a, b] = parts as [SelectorNode, SelectorNode];
    return { at, text, hints, facts, test: (s) => a.test(s) ?? b.test(s), ...keyed(key) };
  }
  return {
    at, text, hints, facts, ...keyed(key),
    test: (s) => {
      for (let i = 0; i < parts.length; i++) {
        const failed = parts[i]!.test(s);
        if (failed) return failed;
      }
      return undefined;
    },
  };
}

/** Hints common to every branch (same path), with their values united. */
function commonHints(children: readonly SelectorNode[]): IndexHint[] {
  if (children.length === 0) return [];
  const out: IndexHint[] = [];
  for (const hint of children[0]!.hints) {
    const key = hint.path.join('\u0000');
    const values = new Set(hint.values);
    let everywhere = true;
    for (const other of children.slice(1)) {
      const same = other.hints.filter((h) => h.path.join('\u0000') === key);
      if (same.length === 0) {
        everywhere = false;
        break;
      }
      for (const h of same) for (const v of h.values) values.add(v);
    }
    if (everywhere) out.push({ path: hint.path, values: [...values] });
  }
  return out;
}

export function anyOf(at: string, children: readonly SelectorNode[]): SelectorNode {
  if (children.some((c) => c === MATCH_ALL)) return MATCH_ALL;
  if (children.length === 1) return children[0]!;
  const node: SelectorNode = {
    at,
    text: `any of (${children.map((c) => c.text).join('; ')})`,
    hints: commonHints(children),
    test: (s) => {
      for (let i = 0; i < children.length; i++) if (!children[i]!.test(s)) return undefined;
      return node;
    },
    ...keyed(sharedKey(children)),
  };
  return node;
}

export function notOf(at: string, child: SelectorNode): SelectorNode {
  const node: SelectorNode = { at, text: `not (${child.text})`, hints: [], test: (s) => (child.test(s) ? undefined : node), ...keyed(sharedKey([child])) };
  return node;
}

export const MATCH_NONE: SelectorNode = leaf('', '(nothing)', () => false);
