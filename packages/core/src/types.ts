/** Public shapes of decisions and traces. Everything here is plain, JSON-serialisable data. */
import type { PatchOperation } from './mutate.js';

/** What a violation does: `deny` blocks, `warn` warns, `audit` only records. Gatekeeper's `dryrun` loads as `audit`. */
export type EnforcementAction = 'deny' | 'warn' | 'audit';

/** `MatchFirst`: the first matching `parameterSelection` entry wins; `MatchAny`: every matching entry merges, in order. */
export type ParameterSelectionBehavior = 'MatchFirst' | 'MatchAny';

/** What happens when no `parameterSelection` entry matches. */
export type NoMatchAction = 'proceed' | 'allow' | 'warn' | 'deny';

/** A failed validate rule of a matched policy, as listed in `decision.violations`. */
export interface Violation {
  /** `metadata.name` of the constraint or Policy. */
  policy: string;
  /** The constraint kind (`K8sMemoryLimits`) or `Policy`. */
  kind: string;
  /** The validate rule's name (`parameterSelection` for a no-match denial). */
  rule: string;
  message: string;
  enforcementAction: EnforcementAction;
  /** JSON pointer into the input of the offending element, for `forEach` over a plain path. */
  path?: string;
  /** Index of the validate entry in the template (`spec.validate`); set for CEL validations and entries with a `reason`. */
  validation?: number;
  /** The validate entry's `reason`, when it has one (adapters map it to a status). */
  reason?: string;
  /** With evaluation-time parameter sets: the index of the set this violation came from. */
  parameterSet?: number;
}

/** A CEL audit annotation a policy produced (`spec.auditAnnotations`). */
export interface Annotation {
  policy: string;
  kind: string;
  key: string;
  value: string;
}

/** Why a policy could not be evaluated for an input (`decision.errors[].code`). */
export type DecisionErrorCode =
  /** The input is not an object. */
  | 'INVALID_INPUT'
  /** A selector could not be evaluated (e.g. a dialect needs data the input lacks). */
  | 'MATCH_ERROR'
  /** Parameters merged from several MatchAny entries failed the schema. */
  | 'INVALID_PARAMETERS'
  /** A rule, message or patch failed while evaluating. */
  | 'RULE_ERROR'
  /**
   * The evaluation spent its cost budget (`costBudget` of `compilePolicies`) and
   * stopped where `policy`/`rule` say; later policies were not evaluated. The
   * decision is not allowed and has no patch; the error has no
   * `enforcementAction`, so adapters apply their failure policy.
   */
  | 'BUDGET_EXCEEDED'
  /** An unexpected failure inside verdict (a bug); the decision fails closed. */
  | 'INTERNAL';

/** A policy that could not be evaluated for the input (`decision.errors`), with the policy and rule concerned when known. */
export interface DecisionError {
  code: DecisionErrorCode;
  message: string;
  policy?: string;
  kind?: string;
  rule?: string;
  enforcementAction?: EnforcementAction;
  /** True when the policy's `failurePolicy` is `Ignore`: the error is reported and does not deny. */
  ignored?: boolean;
  /** With evaluation-time parameter sets: the index of the set. */
  parameterSet?: number;
}

/** The first selector part that did not match, in a {@link PolicyTrace}. */
export interface SelectorMismatch {
  /**
   * JSON pointer of the selector part that failed, in the policy document (for a policy translated from
   * other documents, with `explain: true`: in the document `source` names, as the user wrote it).
   */
  at: string;
  /** What that part requires. */
  selector: string;
  /** With `explain: true`, for a translated policy: the document, as written, that `at` points into. */
  source?: TraceSource;
}

/**
 * A place in a document given to `compilePolicies`, for the parts of a policy a translator made from the user's
 * own documents (a ValidatingAdmissionPolicy and its binding, a Gatekeeper ConstraintTemplate, a kinitiras
 * policy). Traces carry it with `explain: true`, so they can speak of what the user wrote.
 */
export interface TraceSource {
  /** Index of the document in the list given to `compilePolicies`. */
  document: number;
  /** The document's `kind`, when it has one. */
  kind?: string;
  /** The document's `metadata.name` (`namespace/name` for a namespaced one), when it has one. */
  name?: string;
  /** JSON pointer inside that document (`''`: the document). */
  path: string;
  /** For documents parsed from text (`parsePolicyDocuments`) with a `source`: that name (the file). */
  file?: string;
  /** For documents parsed from text: the line (1-based) of `path`, or of the nearest part of it the document has. */
  line?: number;
  /** For documents parsed from text: the column (1-based) of `path`. */
  column?: number;
}

/** How `parameterSelection` chose the parameters of one policy, in a {@link PolicyTrace}. */
export interface SelectionTrace {
  behavior: ParameterSelectionBehavior;
  /** Entries that matched (MatchFirst: at most the first one), by index and optional name. */
  matched: ReadonlyArray<{ readonly index: number; readonly name?: string }>;
  /**
   * `selected`: entries matched; `no-entries`: the constraint has none (spec.parameters used);
   * `no-match-*`: none matched and `onParameterSelectionNoMatch` decided.
   */
  outcome: 'selected' | 'no-entries' | 'no-match-proceed' | 'no-match-allow' | 'no-match-warn' | 'no-match-deny';
  /** With `explain: true`: why each entry before the winner did not match. */
  mismatches?: Array<{ index: number; name?: string } & SelectorMismatch>;
}

/** One rule's outcome in a {@link PolicyTrace}. */
export interface RuleTrace {
  rule: string;
  type: 'validate' | 'mutate';
  result: 'pass' | 'fail' | 'error' | 'skipped';
  /** For `forEach` rules: how many elements were checked and how many failed. */
  elements?: number;
  violations?: number;
  /** Why a rule errored or was skipped, or the first comparison without an answer that failed it. */
  message?: string;
  /**
   * The part of the rule that failed when it is not its test, as a JSON pointer inside the rule: `/messageExpression`
   * when a failed CEL validation's messageExpression failed (its `message` was used, as the API server does).
   */
  at?: string;
  /** For a mutate rule that changed something: the operations it contributed (the policy's `patch` holds them all). */
  patch?: PatchOperation[];
  /**
   * With `explain: true`, for a rule a translator made: where the user wrote it, at the field that decided its result
   * when it has one (a ValidatingAdmissionPolicy's `/spec/validations/0/expression`, or `…/messageExpression` with `at`).
   */
  source?: TraceSource;
}

/** What happened to one policy during an evaluation (`decision.trace`): match, parameter selection, rules. */
export interface PolicyTrace {
  policy: string;
  kind: string;
  enforcementAction: EnforcementAction;
  /**
   * With `explain: true`, for a policy a translator made: every action its document applies, in the document's
   * order (a ValidatingAdmissionPolicyBinding's `validationActions: [Deny, Audit]` is `['deny', 'audit']`);
   * `enforcementAction` is the one core's decision enforces.
   */
  actions?: EnforcementAction[];
  matched: boolean;
  /** When not matched: the first selector part that failed. */
  mismatch?: SelectorMismatch;
  selection?: SelectionTrace;
  /** The merged parameters the rules saw. */
  parameters?: Readonly<Record<string, unknown>>;
  rules: RuleTrace[];
  /** Operations this policy contributed. */
  patch?: PatchOperation[];
  error?: string;
  /** With evaluation-time parameter sets: which set this trace is for (one trace per set). */
  parameterSet?: number;
  /** CEL `spec.variables` computed during the evaluation (those never read are absent). */
  variables?: Record<string, unknown>;
  /**
   * With `explain: true`, for a policy a translator made: the user's document it stands for (a
   * ValidatingAdmissionPolicyBinding, a kinitiras OverridePolicy, a Kyverno ValidatingPolicy), with `path` `''`
   * or the part of it the policy is (`/spec/overrideRules/1`).
   */
  source?: TraceSource;
}

/**
 * The result of `PolicySet.evaluate`. `allowed` is false when a deny-enforced
 * violation exists, a deny-enforced policy errored, or the input was invalid.
 */
export interface Decision {
  allowed: boolean;
  violations: Violation[];
  /** `[policy] message` for warn-enforced violations and `onParameterSelectionNoMatch: warn`. */
  warnings: string[];
  errors: DecisionError[];
  /** The combined RFC 6902 operations, relative to the mutation target, in application order. */
  patch: PatchOperation[];
  /** The mutation target after every patch; present only when `patch` is not empty. */
  mutated?: unknown;
  /** One entry per policy whose selectors were evaluated, in policy order. */
  trace: PolicyTrace[];
  /** CEL audit annotations (`spec.auditAnnotations`) of the policies that applied; absent when none. */
  annotations?: Annotation[];
  /** Policies ruled out by the selector index without evaluation (0 with `explain: true`). */
  skipped: number;
  /**
   * Units this evaluation spent (see `costBudget` of `compilePolicies`): the rules' units (for CEL, the API
   * server's) and verdict's own work (converting input for CEL, …), each of which the budget holds to its figure
   * apart; absent when the input was rejected before evaluation.
   */
  cost?: number;
  /**
   * Present only when the decision lists fewer violations or warnings than it
   * found (`maxViolations` of `compilePolicies`): how many were left out, and
   * how many of those are deny-enforced. `allowed` accounts for every violation.
   */
  omitted?: { violations: number; denials: number; warnings: number };
}

/** Options of `PolicySet.evaluate`. */
export interface EvaluateOptions {
  /** Apply `mutate` rules (default true). A validating-only caller passes false: no patch is computed. */
  mutate?: boolean;
  /** Evaluate every policy's selectors (no index) and record why each parameterSelection entry failed. */
  explain?: boolean;
  /**
   * Called once after the mutation phase when something was patched, with the
   * input as patched and the mutation target's new value; returns the input
   * the validation phase sees. Adapters use it to rebuild fields derived from
   * the target (the Kubernetes adapter's `labels` from `object.metadata.labels`).
   */
  refresh?: (input: Record<string, unknown>, mutated: unknown) => Record<string, unknown>;
}

/** Summary of one loaded policy. */
export interface PolicyInfo {
  readonly kind: string;
  readonly name: string;
  readonly order: number;
  readonly enforcementAction: EnforcementAction;
  /** `metadata.name` of the PolicyTemplate (or the Policy itself). */
  readonly template: string;
  readonly parameterSelection: number;
  readonly validate: readonly string[];
  readonly mutate: readonly string[];
}
