/**
 * The answer of Kyverno ValidatingPolicies, as Kyverno's admission controller
 * gives it (`pkg/webhooks/resource/vpol/handler.go`): each policy has at most
 * one result (its first failing or erroring validation). With `Deny` among its
 * validationActions a failure is `Policy <name> failed: <message>` and an error
 * `Policy <name> error: <message>`; all of them are joined with `; ` into the
 * one denial message (no status code: the API server reports 400). With `Warn`
 * the same lines are warnings. `Audit` adds nothing to the response: Kyverno
 * writes it to a report, verdict keeps it in the decision.
 */
import type { Decision, DecisionError } from '@verdict/core';
import type { PolicyAnswer } from '../vap/answer.js';
import type { TranslationRegistry } from '../vap/registry.js';
import type { KyvernoVariant } from './translate.js';

/** The message of an error of a Kyverno policy, in Kyverno's words (its `RuleError` message). */
export function kyvernoError(e: DecisionError): string {
  if (e.code === 'MATCH_ERROR') return `failed to load context: ${e.message.replace(/^matchCondition "[^"]*": /, '')}`;
  const annotation = /^audit annotation "([^"]*)": ([\s\S]*)$/.exec(e.message);
  if (annotation) return `error: failed to evaluate auditAnnotation '${annotation[1]}': ${annotation[2]}`;
  return `error: ${e.message.replace(/^rule "[^"]*" failed: /, '')}`;
}

/** Splits out and answers the decision entries of Kyverno policies. */
export function kyvernoAnswer(decision: Decision, registry: TranslationRegistry): PolicyAnswer | undefined {
  if (registry.kyverno.size === 0 || (decision.violations.length === 0 && decision.errors.length === 0)) return undefined;
  const out: PolicyAnswer = { denials: [], warnings: [], auditAnnotations: {}, handled: new Set() };
  const denied: string[] = [];
  const act = (variant: KyvernoVariant, line: string) => {
    if (variant.policy.actions.includes('Deny')) denied.push(line);
    if (variant.policy.actions.includes('Warn')) out.warnings.push(line);
  };
  for (const v of decision.violations) {
    const variant = registry.kyvernoOf(v.kind, v.policy);
    if (!variant) continue;
    out.handled.add(v);
    act(variant, `Policy ${variant.policy.name} failed: ${v.message}`);
  }
  for (const e of decision.errors) {
    if (e.code === 'BUDGET_EXCEEDED') continue; // the webhook's failure (toResponse.ts)
    const variant = registry.kyvernoOf(e.kind, e.policy);
    if (!variant) continue;
    out.handled.add(e);
    if (!e.ignored) act(variant, `Policy ${variant.policy.name} error: ${kyvernoError(e)}`);
  }
  if (denied.length > 0) out.denials.push({ message: denied.join('; ') });
  return out;
}

/** Both answers of a decision's native policies (ValidatingAdmissionPolicies first, then Kyverno's). */
export function mergeAnswers(a: PolicyAnswer | undefined, b: PolicyAnswer | undefined): PolicyAnswer | undefined {
  if (!a || !b) return a ?? b;
  return {
    denials: [...a.denials, ...b.denials],
    warnings: [...a.warnings, ...b.warnings],
    auditAnnotations: { ...a.auditAnnotations, ...b.auditAnnotations },
    handled: new Set([...a.handled, ...b.handled]),
  };
}
