/**
 * The answer of Kyverno MutatingPolicies, as Kyverno's admission controller
 * gives it (`pkg/webhooks/resource/mpol/handler.go`): a policy that errors
 * (a matchCondition, variable or mutation that cannot be evaluated or applied)
 * contributes no patch; under failurePolicy Fail it denies with
 * `Resource: <namespace>/<name>, Kind: <kind>, Errors: [Policy <name>: failed to evaluate policy: <error> …]`
 * and no status code (the API server reports 400). Under Ignore the request
 * goes on without that policy's mutations. Each policy gives one error: its first.
 */
import type { Decision, DecisionError } from '@verdict/core';
import type { PolicyAnswer } from '../vap/answer.js';
import type { TranslationRegistry } from '../vap/registry.js';

/** The request a denial names. */
export interface AnsweredResource {
  namespace?: string | undefined;
  name?: string | undefined;
  kind?: string | undefined;
}

/** The error of a MutatingPolicy in Kyverno's words (its rule message). */
export function mutatingPolicyError(e: DecisionError): string {
  const inner = e.message.replace(/^mutate rule "[^"]*"( was not applied)?: /, '').replace(/^matchCondition "[^"]*": /, '');
  return `failed to evaluate policy: ${inner}`;
}

/** Splits out and answers the errors of Kyverno MutatingPolicies; `undefined` when there are none. */
export function kyvernoMutatingAnswer(decision: Decision, registry: TranslationRegistry, resource: AnsweredResource = {}): PolicyAnswer | undefined {
  if (registry.kyvernoMutating.size === 0 || decision.errors.length === 0) return undefined;
  const out: PolicyAnswer = { denials: [], warnings: [], auditAnnotations: {}, handled: new Set() };
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const e of decision.errors) {
    const variant = registry.kyvernoMutatingOf(e.kind, e.policy);
    if (!variant) continue;
    out.handled.add(e);
    if (e.ignored || seen.has(variant.name)) continue;
    seen.add(variant.name);
    lines.push(`Policy ${variant.policy.name}: ${mutatingPolicyError(e)}`);
  }
  if (lines.length > 0) out.denials.push({ message: `Resource: ${resource.namespace ?? ''}/${resource.name ?? ''}, Kind: ${resource.kind ?? ''}, Errors: [${lines.join(' ')}]` });
  return out.handled.size > 0 ? out : undefined;
}
