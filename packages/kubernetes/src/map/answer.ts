/**
 * The answer of MutatingAdmissionPolicies, as the API server gives it
 * (`policy/generic/policy_dispatcher.go`): an error of a binding whose policy
 * has failurePolicy Fail denies with `policy '<policy>' with binding
 * '<binding>' denied request: <error>`, status 403 and reason Invalid (mutation
 * and matchCondition errors) or Forbidden (parameter configuration errors).
 * Errors under failurePolicy Ignore are dropped: the object goes on as the
 * other mutations left it. Mutations themselves are the decision's patch.
 */
import type { Decision, DecisionError } from '@verdict/core';
import type { PolicyAnswer, PolicyDenial } from '../vap/answer.js';
import type { TranslationRegistry } from '../vap/registry.js';

/** The error's own message, without verdict's prefixes (the rule, "unable to …"). */
function inner(e: DecisionError): string {
  return e.message.replace(/^mutate rule "[^"]*"( was not applied)?: /, '').replace(/^unable to (resolve parameters|match): /, '');
}

function denial(names: { policy: string; binding: string }, e: DecisionError): PolicyDenial {
  const config = e.code === 'MATCH_ERROR' && !e.message.startsWith('matchCondition ');
  return { message: `policy '${names.policy}' with binding '${names.binding}' denied request: ${inner(e)}`, reason: config ? 'Forbidden' : 'Invalid', code: 403 };
}

/** Splits out and answers the errors of MutatingAdmissionPolicy bindings; `undefined` when there are none. */
export function mutatingAnswer(decision: Decision, registry: TranslationRegistry): PolicyAnswer | undefined {
  if (registry.mutating.size === 0 || decision.errors.length === 0) return undefined;
  const out: PolicyAnswer = { denials: [], warnings: [], auditAnnotations: {}, handled: new Set() };
  for (const e of decision.errors) {
    if (e.code === 'BUDGET_EXCEEDED') continue; // the webhook's failure (toResponse.ts)
    const names = registry.mutatingBinding(e.kind, e.policy);
    if (!names) continue;
    out.handled.add(e);
    if (!e.ignored) out.denials.push(denial(names, e));
  }
  return out.handled.size > 0 ? out : undefined;
}
