import type { LabelSelector } from '../labels.js';

/** A path into the input: a dotted string, a JSON pointer, or a list of segments. */
export type Path = string | readonly string[];

/**
 * A selector, as a match dialect returns it. Core compiles it once; every
 * form may carry `where` (a JSON pointer relative to the match block, shown in
 * traces) and `describe` (a human description).
 *
 * - `true` / `false`: matches everything / nothing;
 * - `{all}` / `{any}` / `{not}`: composition;
 * - `{labels, path}`: a label selector over the string map at `path`;
 * - `{field, values?, exclude?}`: the value at `field` equals or glob-matches one of `values`
 *   and none of `exclude` (for a list value: any element);
 * - `{when}`: a json-logic condition (root mode: the input, with `parameters` = the constraint's `spec.parameters`);
 * - `{test}`: a predicate of the dialect's own, for semantics the other forms cannot express.
 *   It may throw to signal a matching error (the policy then reports an error). With `key`
 *   (see {@link SelectionKey}) core may reuse its answer for inputs with the same key.
 */
export type Selector =
  | boolean
  | SelectorCommon & { all: readonly Selector[] }
  | SelectorCommon & { any: readonly Selector[] }
  | SelectorCommon & { not: Selector }
  | SelectorCommon & { labels: LabelSelector | string; path: Path }
  | SelectorCommon & { field: Path; values?: readonly unknown[]; exclude?: readonly unknown[] }
  | SelectorCommon & { when: unknown }
  | SelectorCommon & { test: (input: unknown) => boolean; index?: IndexHint; key?: SelectionKey };

/**
 * The values of an input that a `{test}` selector's answer depends on, compared with `===` in
 * order; `undefined` when, for this input, the answer may depend on more. When every selector of a
 * policy (its match and each parameterSelection entry) has the same key function, core remembers
 * the policy's matching and parameterSelection outcome per key: a recent key skips them. A test
 * that throws is never remembered. Objects in a key are compared by identity, so they must not
 * change (give frozen ones only).
 */
export type SelectionKey = (input: unknown) => readonly unknown[] | undefined;

export interface SelectorCommon {
  /** JSON pointer relative to the match block (e.g. `/namespaceSelector`). */
  where?: string;
  /** What this selector requires, for traces (e.g. `namespace in (kube-*)`). */
  describe?: string;
}

/** "Only inputs whose value at `path` is one of `values` can match": lets core index policies. */
export interface IndexHint {
  path: readonly string[];
  values: readonly string[];
}

/** What a dialect may ask of core while it compiles a match block. */
export interface DialectContext {
  /** JSON pointer of the match block in its document (e.g. `/spec/parameterSelection/0/match`). */
  readonly where: string;
  /** Reports a load problem at a JSON pointer relative to the match block. */
  problem(path: string, message: string): void;
  /**
   * Validates a label selector (structured or kubectl string form) found at
   * `path` (relative), reporting every problem with a did-you-mean hint.
   * Returns it when valid, `undefined` otherwise.
   */
  labelSelector(value: unknown, path: string): LabelSelector | string | undefined;
}

/**
 * A match vocabulary registered with `compilePolicies({dialects})`. It owns
 * the listed `keys` of every match block (in `spec.match` and in each
 * `parameterSelection` entry) and translates them into core selectors; core
 * compiles its own keys (`labels`, `fields`, `when`, `all`, `any`, `not`) and
 * ANDs everything.
 */
export interface MatchDialect {
  readonly name: string;
  readonly keys: readonly string[];
  /** Receives only this dialect's keys of one match block (at least one is present). */
  compile(block: Readonly<Record<string, unknown>>, ctx: DialectContext): Selector;
}
