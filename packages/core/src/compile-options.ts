/**
 * What `compilePolicies` takes (its options and the limits of one evaluation)
 * and what it makes of each policy (`CompiledPolicy`, the form evaluate.ts and
 * selection.ts run).
 */
import type { CelOptions } from './languages/cel-context.js';
import type { InputShape } from './input-reads.js';
import { VerdictError } from './errors.js';
import type { MergeRules } from './merge.js';
import type { PatchType } from './mutate.js';
import type { SelectionMemo } from './selectors/memo.js';
import type { SelectorNode } from './selectors/node.js';
import type { MatchDialect } from './selectors/types.js';
import type { TemplateUnit } from './template-unit.js';
import type { DocumentTranslator } from './translate.js';
import type { EnforcementAction, NoMatchAction, ParameterSelectionBehavior, PolicyInfo, SelectionTrace } from './types.js';
import type { JsonObject } from './util/object.js';
import type { Variant } from './variants.js';

/** Options of {@link compilePolicies} (and of the loaders that call it). */
export interface CompileOptions {
  /** Match vocabularies to accept besides core's (e.g. the Kubernetes adapter's Gatekeeper `match`). */
  dialects?: readonly MatchDialect[];
  /**
   * JSON pointer into the input that `mutate` patches address (default `''`,
   * the whole input). The Kubernetes adapter uses `/object`.
   */
  mutationTarget?: string;
  /**
   * Load-time checks of parameters an adapter gives a meaning to (e.g. the CI
   * adapter's `runners`). Called with `spec.parameters` and with each
   * parameterSelection entry's parameters as written (before merging); each
   * issue becomes an `INVALID_PARAMETERS` problem at that place (`path` is a
   * JSON pointer relative to the parameters).
   */
  checkParameters?: (parameters: Readonly<Record<string, unknown>>) => ReadonlyArray<{ path: string; message: string }>;
  /**
   * The shape of the input the adapter builds, as a JSON Schema subset
   * (`properties`, `items`, `additionalProperties: true` where the contents are
   * open, an optional `title` naming it in messages). A rule, selector (`when`,
   * `fields`, `labels` paths) or message of the user's documents that reads a path the shape does not have
   * (`{"var": "job.imag"}`) is an `UNKNOWN_INPUT_PATH` load problem with a
   * did-you-mean. Reads of `parameters` and `element` are not checked here.
   */
  inputShape?: InputShape;
  /** Document vocabularies of an adapter (e.g. Kubernetes ValidatingAdmissionPolicies), turned into core documents before compiling. */
  translators?: readonly DocumentTranslator[];
  /** CEL rules: an adapter's names (profile), added functions and refused libraries (see docs/concepts/cel.md). */
  cel?: CelOptions;
  /**
   * Patch types of computed mutations (a mutate rule's CEL `expression` with `patchType: <name>`), besides the
   * built-in `JSONPatch` (the expression gives a list of RFC 6902 operations); an entry named `JSONPatch` replaces it.
   */
  patchTypes?: Readonly<Record<string, PatchType>>;
  /**
   * Parameters chosen at evaluation time (a ValidatingAdmissionPolicy binding's `paramRef`). Called once per
   * policy at load; a returned resolver is called per evaluation with the input and gives the parameter
   * objects to evaluate the policy with, each separately (used as they are: no merge, no schema). An empty
   * list follows `onParameterSelectionNoMatch`; a throw is an error of the policy (its `failurePolicy` decides).
   */
  parameterSets?: (policy: { readonly kind: string; readonly name: string; readonly document: object }) => ParameterSetResolver | undefined;
  /**
   * The input a policy's rules and matchConditions read, when it differs from the input its `match` reads (the
   * Kubernetes adapter gives Gatekeeper constraints the deleted object as `object` on DELETE, as Gatekeeper's
   * webhook does). Called once per policy at load; a returned function is called per evaluation with the input
   * (it must not modify it, and should return it as it is when there is nothing to change).
   */
  inputView?: (policy: { readonly kind: string; readonly name: string; readonly document: object }) => InputView | undefined;
  /**
   * Cost budget of one `evaluate` call, in units (about one per list element
   * visited, one per ten characters scanned or built; docs/security.md).
   * CEL spends two kinds of units (the API server's and verdict's own work),
   * each held to this figure apart; `decision.cost` is their sum.
   * Default `DEFAULT_COST_BUDGET` (10,000,000); `Infinity` disables it.
   * An evaluation that exceeds it stops with a `BUDGET_EXCEEDED` error.
   */
  costBudget?: number;
  /**
   * Most violations (and, separately, warnings) one decision lists; the rest are
   * counted in `decision.omitted`. Default 100.
   */
  maxViolations?: number;
  /** Longest violation message, in characters (UTF-16 code units); longer ones end with "…". Default 4096. */
  maxMessageLength?: number;
}

/** Default of {@link CompileOptions.maxViolations}. */
export const DEFAULT_MAX_VIOLATIONS = 100;
/** The options of {@link CompileOptions} that bound one evaluation; adapters accept them as `limits`. */
export type EvaluationLimits = Pick<CompileOptions, 'costBudget' | 'maxViolations' | 'maxMessageLength'>;
const LIMIT_KEYS = ['costBudget', 'maxViolations', 'maxMessageLength'] as const;

/** Whether `options` sets any of the {@link EvaluationLimits}. */
export function hasLimits(options: CompileOptions): boolean {
  return LIMIT_KEYS.some((k) => options[k] !== undefined);
}
/** Default of {@link CompileOptions.maxMessageLength}. */
export const DEFAULT_MAX_MESSAGE_LENGTH = 4096;

/** A positive number option (or `Infinity` when `infinite`), else a clear error. */
export function limitOption(options: CompileOptions, key: 'costBudget' | 'maxViolations' | 'maxMessageLength', fallback: number, integer: boolean): number {
  const value = options[key];
  if (value === undefined) return fallback;
  const ok = typeof value === 'number' && (value === Number.POSITIVE_INFINITY || (value > 0 && (!integer || Number.isInteger(value))));
  if (!ok) throw new VerdictError('INVALID_INPUT', `${key} must be a positive ${integer ? 'integer' : 'number'} or Infinity (got ${JSON.stringify(value) ?? String(value)})`);
  return value;
}

/** The input a policy's rules read, for one input (see {@link CompileOptions.inputView}). */
export type InputView = (input: Record<string, unknown>) => Record<string, unknown>;

/** Gives the parameter objects a policy is evaluated with, for one input (see {@link CompileOptions.parameterSets}). */
export type ParameterSetResolver = (input: Readonly<Record<string, unknown>>) => ReadonlyArray<Readonly<Record<string, unknown>>>;

export interface CompiledEntry {
  index: number;
  ref: { readonly index: number; readonly name?: string };
  /** The trace of a MatchFirst selection of this entry, built once and shared (frozen). */
  chosen: SelectionTrace;
  match: SelectorNode;
  parameters: JsonObject;
  variant: Variant;
}

export interface CompiledPolicy {
  ordinal: number;
  /** Index of the document it was compiled from (past the given list: a translated one). */
  index: number;
  kind: string;
  name: string;
  order: number;
  enforcementAction: EnforcementAction;
  template: TemplateUnit;
  match: SelectorNode;
  base: Variant;
  behavior: ParameterSelectionBehavior;
  onNoMatch: NoMatchAction;
  entries: CompiledEntry[];
  merge?: MergeRules;
  /** MatchAny combinations, merged lazily and cached by the list of matched entries. */
  anyCache: Map<string, Variant>;
  /** The key function its match and every entry share (see `SelectionKey`), with the outcomes remembered per key. */
  memo?: SelectionMemo;
  /** Evaluation-time parameter sets (see {@link CompileOptions.parameterSets}). */
  parameterSets?: ParameterSetResolver;
  /** The input its rules read (see {@link CompileOptions.inputView}); absent: the input itself. */
  view?: InputView;
  /** Shared, frozen traces for the outcomes that do not depend on the input. */
  outcomes: { noEntries: SelectionTrace; noMatch: SelectionTrace };
  info: PolicyInfo;
  /** Where the policy came from (for lint findings with file and line); `path` maps pointers of a translated document. */
  document: { index: number; object: object; path?: (pointer: string) => string };
}
