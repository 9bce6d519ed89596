/**
 * One request, one decision. A mutating webhook evaluates in two passes when
 * something was patched: the mutations on the object as received, then the
 * validations on an input rebuilt from the mutated object, so that `labels`,
 * `annotations` and `namespaceLabels` (of a Namespace) describe the object
 * that will be stored, and selectors match it, as a validating webhook
 * called after this one would see it.
 */
import type { Decision, DecisionError, EvaluateOptions, PolicySet, PolicyTrace } from '@verdict/core';
import { buildInput } from './toInput.js';
import type { Inventory } from './inventory.js';
import type { AdmissionInput, AdmissionRequest, KubernetesObject, LabelMap } from './types.js';

/** What the host looked up for one request. */
export interface RequestContext {
  namespaceLabels: LabelMap | undefined;
  inventory: Inventory | undefined;
}

/** The two ways a request is evaluated; shared, so that a review allocates no options object. */
const VALIDATE: EvaluateOptions = Object.freeze({ mutate: false });
const MUTATE: EvaluateOptions = Object.freeze({ mutate: true });

const keyOf = (kind: string | undefined, policy: string | undefined) => `${kind ?? ''}/${policy ?? ''}`;

function mutateRuleNames(policies: PolicySet): Map<string, ReadonlySet<string>> {
  return new Map(policies.policies.map((p) => [keyOf(p.kind, p.name), new Set(p.mutate)]));
}

function combine(policies: PolicySet, mutation: Decision, validation: Decision): Decision {
  const names = mutateRuleNames(policies);
  const isMutationError = (e: DecisionError) => e.rule !== undefined && names.get(keyOf(e.kind, e.policy))?.has(e.rule) === true;
  const mutationErrors = mutation.errors.filter(isMutationError);
  const byPolicy = new Map(mutation.trace.map((t) => [keyOf(t.kind, t.policy), t]));
  const trace: PolicyTrace[] = validation.trace.map((t) => {
    const m = byPolicy.get(keyOf(t.kind, t.policy));
    byPolicy.delete(keyOf(t.kind, t.policy));
    const mutated = m ? m.rules.filter((r) => r.type === 'mutate') : [];
    // A policy that mutates and did not match when its turn came (a matchCondition on the object as mutated so far) is traced as then.
    if (m && !m.matched && t.rules.length === 0 && names.get(keyOf(t.kind, t.policy))?.size) return m;
    if (mutated.length === 0) return t;
    // A policy that mutated matched then, even if it no longer matches the mutated object (a matchCondition such as "no sidecar yet").
    const { mismatch: _mismatch, ...rest } = t;
    return { ...(m?.matched && !t.matched ? { ...rest, matched: true } : t), rules: [...mutated, ...t.rules], ...(m?.patch ? { patch: m.patch } : {}) };
  });
  for (const t of byPolicy.values()) if (t.patch) trace.push({ ...t, rules: t.rules.filter((r) => r.type === 'mutate') });
  const decision: Decision = {
    allowed: validation.allowed && !mutationErrors.some((e) => e.enforcementAction === 'deny' && e.ignored !== true),
    violations: validation.violations,
    warnings: [...mutationErrors.filter((e) => e.enforcementAction === 'warn').map((e) => `[${e.policy}] ${e.message}`), ...validation.warnings],
    errors: [...mutationErrors, ...validation.errors],
    patch: mutation.patch,
    trace,
    skipped: validation.skipped,
  };
  if (mutation.mutated !== undefined) decision.mutated = mutation.mutated;
  return decision;
}

/** Builds the input and evaluates it; `mutating` computes and applies the patch first. */
export function evaluateRequest(
  policies: PolicySet, request: AdmissionRequest, context: RequestContext, mutating: boolean,
): { input: AdmissionInput; decision: Decision } {
  const { namespaceLabels, inventory } = context;
  const input = buildInput(request, namespaceLabels, inventory);
  if (!mutating || input.object === null) return { input, decision: policies.evaluate(input, VALIDATE) };
  const mutation = policies.evaluate(input, MUTATE);
  if (mutation.patch.length === 0 || mutation.mutated === null || typeof mutation.mutated !== 'object') return { input, decision: mutation };
  const after = buildInput({ ...request, object: mutation.mutated as KubernetesObject }, namespaceLabels, inventory);
  return { input, decision: combine(policies, mutation, policies.evaluate(after, VALIDATE)) };
}
