/**
 * The two phases of an evaluation after selection: mutations in policy order
 * on a copy-on-write view of the input, then validations on the result. A
 * {@link Run} collects what the decision reports.
 */
import { computedVariables, type CelProfile, type FailedValidation } from './languages/cel-rule.js';
import { BudgetExceeded, CostLimitExceeded, type CostMeter } from './budget.js';
import { ComparisonError } from './logic/compare.js';
import { truthy, rootStep, type Fn, type Scope } from './logic/scope.js';
import type { CompiledPolicy, CompiledValidate } from './compile.js';
import type { SelectionKey } from './selectors/types.js';
import type { PathResolver } from './template.js';
import type { Annotation, Decision, DecisionError, DecisionErrorCode, PolicyTrace, RuleTrace, Violation } from './types.js';
import { describeType, ownGet } from './util/object.js';

/** A policy whose rules run, with its scope (parameters chosen) and trace. */
export interface Active {
  policy: CompiledPolicy;
  scope: Scope;
  trace: PolicyTrace;
  /** With evaluation-time parameter sets: the index of this run's set. */
  parameterSet?: number;
  /** Its matchConditions are evaluated when the mutation phase reaches it (a policy that mutates). */
  deferred?: true;
  /** Its matchConditions did not hold (or failed) in the mutation phase: its other rules do not run. */
  unmatched?: true;
}

/** Reads a template path from the scope: `undefined` when any step is missing. */
export function resolverFor(scope: Scope): PathResolver {
  return (segments) => {
    if (segments.length === 0) return undefined;
    let cur = rootStep(scope, segments[0]!);
    for (let i = 1; i < segments.length && cur !== undefined; i++) cur = cur === null ? undefined : ownGet(cur, segments[i]!);
    return cur;
  };
}

/**
 * Lets a {@link BudgetExceeded} through a catch-all handler, recording where
 * it happened (the first policy and rule it passes); any other error returns.
 */
export function passBudget(error: unknown, policy: CompiledPolicy, rule?: string): void {
  if (!(error instanceof BudgetExceeded)) return;
  if (!error.policy) {
    error.policy = { name: policy.name, kind: policy.kind };
    if (rule !== undefined) error.rule = rule;
  }
  throw error;
}

/** How much one decision carries (see `CompileOptions`). */
export interface RunLimits {
  violations: number;
  messageLength: number;
}

/** Cuts `message` to `max` characters, ending with "…" (never splitting a surrogate pair). */
export function capMessage(message: string, max: number): string {
  if (message.length <= max) return message;
  let end = Math.max(0, max - 1);
  const code = message.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${message.slice(0, end)}…`;
}

/** `decision.omitted`, when something was left out. */
export function omittedOf(run: Run): Decision['omitted'] {
  if (run.omittedViolations === 0 && run.omittedWarnings === 0) return undefined;
  return { violations: run.omittedViolations, denials: run.omittedDenials, warnings: run.omittedWarnings };
}

/** A point in a {@link Run} to roll back to. */
export interface RunMark {
  readonly allowed: boolean;
  readonly violations: number;
  readonly warnings: number;
  readonly errors: number;
  readonly omittedViolations: number;
  readonly omittedDenials: number;
  readonly omittedWarnings: number;
}

/** What a decision collects while policies run. */
export class Run {
  allowed = true;
  readonly violations: Violation[] = [];
  readonly warnings: string[] = [];
  readonly errors: DecisionError[] = [];
  readonly trace: PolicyTrace[] = [];
  /** Violations (of which deny-enforced) and warnings found but not listed, beyond `limits.violations`. */
  omittedViolations = 0;
  omittedDenials = 0;
  omittedWarnings = 0;

  /** @param meter the evaluation's cost meter, shared by every policy's scope */
  constructor(readonly limits: RunLimits, readonly meter: CostMeter) {}

  /** CEL audit annotations, made when the first is published (most evaluations have none). */
  annotations: Annotation[] | undefined;

  /** The last selection key computed in this run: policies that share a key function read the input once. */
  private keyFn: SelectionKey | undefined;
  private keyValues: readonly unknown[] | undefined;

  /** `key(input)`, once per key function and run (the input does not change while policies are selected). */
  selectionKey(key: SelectionKey, input: unknown): readonly unknown[] | undefined {
    if (key !== this.keyFn) {
      this.keyFn = key;
      try {
        this.keyValues = key(input);
      } catch {
        this.keyValues = undefined; // a key that cannot be read: match as usual
      }
    }
    return this.keyValues;
  }

  violate(policy: CompiledPolicy, rule: string, message: string, extra?: Details): void {
    if (policy.enforcementAction === 'deny') this.allowed = false;
    else if (policy.enforcementAction === 'warn') this.warn(`[${policy.name}] ${message}`);
    if (this.violations.length >= this.limits.violations) {
      this.omittedViolations++;
      if (policy.enforcementAction === 'deny') this.omittedDenials++;
      return;
    }
    const v: Violation = { policy: policy.name, kind: policy.kind, rule, message, enforcementAction: policy.enforcementAction };
    if (extra) Object.assign(v, extra);
    this.violations.push(v);
  }

  warn(message: string): void {
    if (this.warnings.length >= this.limits.violations) this.omittedWarnings++;
    else this.warnings.push(message);
  }

  /** Records an error of `policy`; `at` names the rule (a string) or the rule and the parameter set. */
  fail(policy: CompiledPolicy, code: DecisionErrorCode, message: string, at?: string | { rule?: string; parameterSet?: number | undefined }): void {
    const e: DecisionError = { code, message, policy: policy.name, kind: policy.kind, enforcementAction: policy.enforcementAction };
    const { rule, parameterSet } = typeof at === 'string' ? { rule: at, parameterSet: undefined } : (at ?? {});
    if (rule !== undefined) e.rule = rule;
    if (parameterSet !== undefined) e.parameterSet = parameterSet;
    if (policy.template.failurePolicy === 'Ignore') {
      e.ignored = true;
      this.errors.push(e);
      return;
    }
    this.errors.push(e);
    if (policy.enforcementAction === 'deny') this.allowed = false;
    else if (policy.enforcementAction === 'warn') this.warn(`[${policy.name}] ${message}`);
  }

  /** What the run has recorded so far, to {@link rollback} to (a policy whose evaluation fails as a whole). */
  mark(): RunMark {
    return {
      allowed: this.allowed, violations: this.violations.length, warnings: this.warnings.length, errors: this.errors.length,
      omittedViolations: this.omittedViolations, omittedDenials: this.omittedDenials, omittedWarnings: this.omittedWarnings,
    };
  }

  /** Forgets what was recorded since `mark` (violations, warnings, errors and what they did to `allowed`). */
  rollback(mark: RunMark): void {
    this.allowed = mark.allowed;
    this.violations.length = mark.violations;
    this.warnings.length = mark.warnings;
    this.errors.length = mark.errors;
    this.omittedViolations = mark.omittedViolations;
    this.omittedDenials = mark.omittedDenials;
    this.omittedWarnings = mark.omittedWarnings;
  }

  /**
   * A failed validate rule. Its message is rendered (charged by its length,
   * then capped) only when the decision will list it. Returns the error of
   * its messageExpression when that failed (the fallback message was used).
   */
  ruleFailed(a: Active, rule: CompiledValidate, element?: number): string | undefined {
    const { policy, scope } = a;
    const max = this.limits.violations;
    if (this.violations.length >= max && (policy.enforcementAction !== 'warn' || this.warnings.length >= max)) {
      this.violate(policy, rule.name, '');
      return undefined;
    }
    const { text: message, messageError } = messageOf(rule, scope, policy.template.cel.context.profile);
    scope.meter.spendText(message.length);
    const path = element === undefined || rule.forEachPath === undefined ? undefined : `${rule.forEachPath}/${element}`;
    this.violate(policy, rule.name, capMessage(message, this.limits.messageLength), details(rule, a, path));
    return messageError;
  }
}

/** The longest messageExpression result used (the API server's MaxEvaluatedMessageExpressionSizeBytes, 5 KiB). */
const MAX_MESSAGE_EXPRESSION_LENGTH = 5 * 1024;

/**
 * The message of a failed validation: `messageExpression` when it gives a non-empty single-line string,
 * else `message`, else (a CEL validation without one) "failed expression: <expression>" (the API server's rule).
 */
function messageOf(rule: CompiledValidate, scope: Scope, profile: CelProfile | undefined): { text: string; messageError?: string } {
  if (profile?.failureMessage && rule.expression !== undefined) {
    // The profile words the message (Kyverno's names a messageExpression error in it); the trace still points at the field.
    const failed = failedValidation(rule, scope);
    const text = profile.failureMessage(failed);
    return failed.messageExpression && 'error' in failed.messageExpression ? { text, messageError: failed.messageExpression.error } : { text };
  }
  let messageError: string | undefined;
  if (rule.messageExpression) {
    try {
      // As the API server (validator.go): trimmed, single-line, non-empty and at most 5 KiB, else the fallback.
      const value = rule.messageExpression(undefined, scope);
      const text = typeof value === 'string' ? value.trim() : '';
      if (text !== '' && !text.includes('\n') && text.length <= MAX_MESSAGE_EXPRESSION_LENGTH) return { text };
    } catch (error) {
      if (error instanceof BudgetExceeded) throw error;
      // The API server falls back to the static message when messageExpression fails; so do we (the trace says so).
      messageError = (error as Error).message;
    }
  }
  const fallback = (text: string) => (messageError === undefined ? { text } : { text, messageError });
  if (rule.literalMessage !== undefined) {
    const text = rule.literalMessage.trim();
    if (text !== '') return fallback(text);
  } else if (rule.hasMessage || rule.expression === undefined) return fallback(rule.message.render(resolverFor(scope), scope.meter));
  return fallback(`failed expression: ${rule.expression?.trim() ?? rule.name}`);
}

/**
 * A rule's trace when its messageExpression failed: the place is that field, and the message says why (the first
 * element's, for forEach); the violation's message is the fallback (the static `message`, or the profile's words).
 */
function messageExpressionFailed(entry: RuleTrace, error: string | undefined): void {
  if (error === undefined || entry.at !== undefined) return;
  entry.at = '/messageExpression';
  entry.message = `messageExpression failed: ${error}`;
}

/** A failed CEL validation for a profile's `failureMessage`: messageExpression is evaluated here (a budget error still ends the evaluation). */
function failedValidation(rule: CompiledValidate, scope: Scope): FailedValidation {
  const failed: { -readonly [K in keyof FailedValidation]: FailedValidation[K] } = { index: rule.index, expression: rule.expression ?? '' };
  if (rule.literalMessage !== undefined) failed.message = rule.literalMessage;
  if (rule.messageExpression) {
    try {
      failed.messageExpression = { value: rule.messageExpression(undefined, scope) };
    } catch (error) {
      if (error instanceof BudgetExceeded) throw error;
      failed.messageExpression = { error: (error as Error).message };
    }
  }
  return failed;
}

/**
 * Whether a validate rule holds. A comparison with no answer (a missing or
 * unordered value, see logic/compare.ts) fails the rule, negated or not; the
 * first reason is kept in the rule's trace.
 */
function holds(rule: Fn, scope: Scope, entry: RuleTrace, element?: number): boolean {
  try {
    return truthy(rule(undefined, scope));
  } catch (error) {
    if (!(error instanceof ComparisonError)) throw error;
    if (entry.message === undefined) {
      const name = ownGet(scope.element, 'name');
      entry.message = element === undefined ? error.message : `element ${element}${typeof name === 'string' ? ` ("${name}")` : ''}: ${error.message}`;
    }
    return false;
  }
}

/** The outcome of a policy's matchConditions: all true, the first false one, or the first error (when none is false). */
export type ConditionsOutcome = { holds: true } | { holds: false; index: number; failed?: undefined } | { holds: false; failed: string };

/** CEL `spec.matchConditions` as the API server evaluates them: any false wins over an error. */
export function evaluateConditions(a: Active): ConditionsOutcome {
  const conditions = a.policy.template.matchConditions;
  let failed: string | undefined;
  for (let i = 0; i < conditions.length; i++) {
    const c = conditions[i]!;
    let ok: unknown;
    try {
      ok = c.test(undefined, a.scope);
    } catch (error) {
      if (error instanceof BudgetExceeded) throw error;
      failed ??= `matchCondition "${c.name}": ${(error as Error).message}`;
      continue;
    }
    if (ok !== true) return { holds: false, index: i };
  }
  return failed === undefined ? { holds: true } : { holds: false, failed };
}

/**
 * A policy's matchConditions for its run: any false → not matched (trace), even when another one failed; all true →
 * the policy applies; an error and none false → the policy's failurePolicy (or skipped, when its profile says so).
 */
export function matchConditions(a: Active, run: Run): boolean {
  const outcome = evaluateConditions(a);
  if (outcome.holds) return true;
  if (outcome.failed === undefined) {
    const c = a.policy.template.matchConditions[outcome.index]!;
    a.trace.matched = false;
    a.trace.mismatch = { at: `/spec/matchConditions/${outcome.index}`, selector: `matchCondition "${c.name}": ${c.expression}` };
    return false;
  }
  if (a.policy.template.cel.context.profile?.matchConditionErrors === 'skip') {
    a.trace.matched = false;
    a.trace.mismatch = { at: '/spec/matchConditions', selector: `${outcome.failed} (a matchCondition error skips the policy)` };
    return false;
  }
  a.trace.error = outcome.failed;
  run.fail(a.policy, 'MATCH_ERROR', outcome.failed, { parameterSet: a.parameterSet });
  return false;
}

/** Runs every active policy's validate rules against `input` (the mutated input when something was patched). */
export function validatePhase(active: readonly Active[], input: Record<string, unknown>, run: Run): void {
  for (const a of active) {
    if (a.unmatched) continue;
    a.scope.input = a.policy.view ? a.policy.view(input) : input;
    const limit = a.policy.template.cel.context.profile?.costLimits?.policy;
    if (limit === undefined) validatePolicy(a, run);
    else {
      const mark = run.mark();
      try {
        a.scope.meter.within(limit, validatePolicy, a, run);
      } catch (error) {
        if (!(error instanceof CostLimitExceeded)) throw error;
        // As the API server (validating/validator.go: the validations' filter returns the error, and the policy's
        // one decision is its failurePolicy's): the policy's evaluation fails as a whole. The violations, warnings
        // and errors its validations recorded are dropped; the trace keeps them, and the rules not run are skipped.
        run.rollback(mark);
        const done = a.trace.rules.filter((entry) => entry.type === 'validate').length;
        for (const rule of a.policy.template.validate.slice(done)) a.trace.rules.push({ rule: rule.name, type: 'validate', result: 'skipped', message: OUT_OF_BUDGET });
        run.fail(a.policy, 'RULE_ERROR', OUT_OF_BUDGET, { parameterSet: a.parameterSet });
      }
    }
    annotate(a, run);
    const variables = computedVariables(a.scope);
    if (variables) a.trace.variables = variables;
  }
}

/** The API server's message when the validations of one policy spend past its budget (`costLimits.policy`). */
const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

function validatePolicy(a: Active, run: Run): void {
  const profile = a.policy.template.cel.context.profile;
  let stopped = false;
  for (const rule of a.policy.template.validate) {
    const entry: RuleTrace = { rule: rule.name, type: 'validate', result: 'pass' };
    a.trace.rules.push(entry);
    if (stopped) {
      entry.result = 'skipped';
      entry.message = 'not evaluated: an earlier validation failed (validations stop at the first failure)';
      continue;
    }
    const scope = a.scope;
    try {
      if (rule.forEach) {
        const list = rule.forEach(undefined, scope);
        if (list === null || list === undefined) {
          entry.elements = 0;
          continue;
        }
        if (!Array.isArray(list)) throw new Error(`forEach must give a list (got ${describeType(list)})`);
        scope.meter.spend(list.length);
        let failed = 0;
        try {
          scope.hasElement = true;
          for (let i = 0; i < list.length; i++) {
            scope.element = list[i];
            if (!holds(rule.rule, scope, entry, i)) {
              failed++;
              messageExpressionFailed(entry, run.ruleFailed(a, rule, i));
            }
          }
        } finally {
          scope.hasElement = false;
          scope.element = undefined;
        }
        entry.elements = list.length;
        entry.violations = failed;
        if (failed > 0) entry.result = 'fail';
      } else if (!holds(rule.rule, scope, entry)) {
        entry.result = 'fail';
        messageExpressionFailed(entry, run.ruleFailed(a, rule));
      }
    } catch (error) {
      entry.result = 'error';
      entry.message = (error as Error).message;
      passBudget(error, a.policy, rule.name);
      run.fail(a.policy, 'RULE_ERROR', `rule "${rule.name}" failed: ${entry.message}`, { rule: rule.name, parameterSet: a.parameterSet });
    }
    if (profile?.firstFailureOnly === true && (entry.result === 'fail' || entry.result === 'error')) stopped = true;
  }
}

type Details = Pick<Violation, 'path' | 'validation' | 'reason' | 'parameterSet'>;

function details(rule: CompiledValidate, a: Active, path: string | undefined): Details | undefined {
  if (rule.expression === undefined && rule.reason === undefined && a.parameterSet === undefined) return path === undefined ? undefined : { path };
  const out: Details = path === undefined ? { validation: rule.index } : { path, validation: rule.index };
  if (rule.reason !== undefined) out.reason = rule.reason;
  if (a.parameterSet !== undefined) out.parameterSet = a.parameterSet;
  return out;
}

/** CEL audit annotations of a policy that applied: strings are published, null leaves the key out. */
function annotate(a: Active, run: Run): void {
  for (const annotation of a.policy.template.annotations) {
    try {
      const value = annotation.value(undefined, a.scope);
      if (value === null) continue;
      if (typeof value !== 'string') throw new Error(`valueExpression must give a string or null, got ${describeType(value)}`);
      (run.annotations ??= []).push({ policy: a.policy.name, kind: a.policy.kind, key: annotation.key, value });
    } catch (error) {
      if (error instanceof BudgetExceeded) throw error;
      run.fail(a.policy, 'RULE_ERROR', `audit annotation "${annotation.key}": ${(error as Error).message}`, { parameterSet: a.parameterSet });
    }
  }
}
