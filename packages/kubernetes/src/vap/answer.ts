/**
 * The answer of ValidatingAdmissionPolicies, as the apiserver gives it
 * (`policy/validating/dispatcher.go`): a failed validation (or an expression
 * error under failurePolicy Fail) goes through the binding's
 * validationActions: Deny denies with the first such decision's message and
 * the status code of its `reason`, Warn adds a warning, Audit records it in
 * the `validation_failure` audit annotation. Configuration errors (no
 * parameters, a namespace that cannot be looked up) deny directly.
 */
import type { Decision, DecisionError, Violation } from '@verdict/core';
import type { BindingInfo, TranslationRegistry } from './registry.js';

/** Status code of each `reason` (the apiserver's `reasonToCode`); anything else is 422 Invalid. */
export const REASON_CODES: Readonly<Record<string, number>> = { Forbidden: 403, Unauthorized: 401, RequestEntityTooLarge: 413, Invalid: 422 };

/** Audit annotation key (before the webhook's `<name>/` prefix) of the failed validations, as a JSON list. */
export const VALIDATION_FAILURE_ANNOTATION = 'validation_failure';
const MAX_FAILURES = 50;
const MAX_ANNOTATION_VALUE = 10 * 1024;

export interface PolicyDenial {
  message: string;
  /** Status reason and code; absent when the answer leaves them to the API server (Kyverno's). */
  reason?: string;
  code?: number;
}

/** What the ValidatingAdmissionPolicies of a decision add to the response. */
export interface PolicyAnswer {
  /** Denials in decision order; the response carries the first (as the apiserver does). */
  denials: PolicyDenial[];
  warnings: string[];
  auditAnnotations: Record<string, string>;
  /** Violations and errors answered here (the Gatekeeper-form answer skips them). */
  handled: Set<Violation | DecisionError>;
}

interface Failure {
  message: string;
  policy: string;
  binding: string;
  expressionIndex: number;
  validationActions: readonly string[];
}

const validationIndex = (rule: string | undefined) => {
  const m = rule === undefined ? null : /^validations\[(\d+)\]$/.exec(rule);
  return m ? Number(m[1]) : -1;
};

/** The message of an expression error, in the apiserver's words. */
export function expressionError(e: DecisionError, validations: ReadonlyArray<{ expression: string }>): string {
  const index = validationIndex(e.rule);
  const inner = e.message.replace(/^rule "[^"]*" failed: /, '');
  const expression = validations[index]?.expression;
  return expression === undefined ? inner : `expression '${expression.trim()}' resulted in error: ${inner}`;
}

/** Whether a policy error is a configuration error (denied directly) rather than an expression's (through validationActions). */
function isConfigError(e: DecisionError): boolean {
  if (e.code === 'RULE_ERROR') return e.rule === undefined;
  return !(e.code === 'MATCH_ERROR' && e.message.startsWith('matchCondition '));
}

function denial(info: BindingInfo, message: string, reason: string | undefined): PolicyDenial {
  const r = reason ?? 'Invalid';
  return { message: `ValidatingAdmissionPolicy '${info.policy}' with binding '${info.binding}' denied request: ${message}`, reason: r, code: REASON_CODES[r] ?? 422 };
}

/** Splits out and answers the decision entries of ValidatingAdmissionPolicy bindings. */
export function policyAnswer(decision: Decision, registry: TranslationRegistry): PolicyAnswer | undefined {
  if (decision.violations.length === 0 && decision.errors.length === 0 && decision.annotations === undefined) return undefined;
  const out: PolicyAnswer = { denials: [], warnings: [], auditAnnotations: {}, handled: new Set() };
  const failures: Failure[] = [];
  const act = (info: BindingInfo, message: string, at: { index: number; reason?: string | undefined }) => {
    for (const action of info.actions) {
      if (action === 'Deny') out.denials.push(denial(info, message, at.reason));
      else if (action === 'Warn') out.warnings.push(`Validation failed for ValidatingAdmissionPolicy '${info.policy}' with binding '${info.binding}': ${message}`);
      else failures.push({ message, policy: info.policy, binding: info.binding, expressionIndex: at.index, validationActions: info.actions });
    }
  };
  for (const v of decision.violations) {
    const info = registry.binding(v.kind, v.policy);
    if (!info) continue;
    out.handled.add(v);
    const index = v.validation ?? validationIndex(v.rule);
    act(info, v.message, { index, reason: v.reason ?? info.validations[index]?.reason });
  }
  for (const e of decision.errors) {
    // The evaluation's budget ran out: the webhook failed, not this policy (its failurePolicy decides; toResponse.ts).
    if (e.code === 'BUDGET_EXCEEDED') continue;
    const info = registry.binding(e.kind, e.policy);
    if (!info) continue;
    out.handled.add(e);
    if (e.ignored) continue;
    if (isConfigError(e)) out.denials.push(denial(info, e.message.replace(/^unable to (resolve parameters|match): /, ''), undefined));
    else act(info, expressionError(e, info.validations), { index: validationIndex(e.rule) });
  }
  if (failures.length > 0) out.auditAnnotations[VALIDATION_FAILURE_ANNOTATION] = JSON.stringify(failures.slice(0, MAX_FAILURES));
  const values = new Map<string, string[]>();
  for (const a of decision.annotations ?? []) {
    const info = registry.binding(a.kind, a.policy);
    if (!info) continue;
    const key = `${info.policy}_${a.key}`;
    const list = values.get(key) ?? [];
    const value = a.value.trim().slice(0, MAX_ANNOTATION_VALUE);
    if (value !== '' && !list.includes(value)) list.push(value);
    values.set(key, list);
  }
  for (const [key, list] of values) if (list.length > 0) out.auditAnnotations[key] = list.join(', ');
  return out;
}
