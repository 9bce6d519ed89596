/**
 * The answer of kinitiras' ClusterValidatePolicies, as its validating webhook
 * gives it (kinitiras pkg/webhook/validateing.go): the first rule that is not
 * valid, in policy order, denies with its `reason` as the message and status
 * `Failure` (no code: the API server reports 403). Override errors keep the
 * Gatekeeper-form answer (500, as kinitiras' `admission.Errored`).
 */
import type { Decision, PolicySet } from '@verdict/core';
import type { PolicyAnswer } from '../vap/answer.js';
import { kinitirasOf } from './runtime.js';

/** Splits out and answers the violations of kinitiras' validate policies; `undefined` when there are none. */
export function kinitirasAnswer(decision: Decision, set: PolicySet | undefined): PolicyAnswer | undefined {
  const runtime = kinitirasOf(set);
  if (!runtime || decision.violations.length === 0) return undefined;
  const out: PolicyAnswer = { denials: [], warnings: [], auditAnnotations: {}, handled: new Set() };
  for (const v of decision.violations) {
    if (v.kind !== 'ClusterValidatePolicy' || !runtime.validations.has(`${v.kind}/${v.policy}/${v.validation ?? -1}`)) continue;
    out.handled.add(v);
    if (out.denials.length === 0) out.denials.push({ message: v.message });
  }
  return out.handled.size > 0 ? out : undefined;
}
