/**
 * Per-policy results of Kyverno MutatingPolicies for one decision, as Kyverno
 * reports them (`kyverno test`, its mutation reports): `pass` (the policy ran;
 * with the operations it applied), `skip` (a matchCondition was false),
 * `error`, for the policy and each autogen variant; `none` when the request is
 * not one the variant matches.
 */
import type { Decision, PatchOperation, PolicySet } from '@verdict/core';
import { ofVariant, resultBase, unmatched } from '../kyverno/results.js';
import { registryOf } from '../vap/registry.js';
import { mutatingPolicyError } from './answer.js';
import type { KyvernoMutatingKind } from './types.js';

/** One MutatingPolicy (or autogen variant) on one request. */
export interface MutatingPolicyResult {
  /** `MutatingPolicy` or `NamespacedMutatingPolicy`. */
  kind: KyvernoMutatingKind;
  /** `metadata.name` of the policy. */
  name: string;
  /** `metadata.namespace` of a NamespacedMutatingPolicy. */
  namespace?: string;
  /** The autogen variant that answered (`defaults`, `cronjobs`); absent for the policy as written. */
  autogen?: string;
  /** `none`: the request is not one the variant's matchConstraints select. */
  result: 'pass' | 'skip' | 'error' | 'none';
  /** The error, or why it was skipped. */
  message?: string;
  /** The operations this variant applied (relative to the object), in order; empty when it changed nothing. */
  patch: readonly PatchOperation[];
  /** The variant's matchConstraints (generated for an autogen variant). */
  matchConstraints: Readonly<Record<string, unknown>>;
}

/**
 * The result of every Kyverno MutatingPolicy of `policies` (loaded with `loadKubernetesPolicies` or
 * `createAdmissionWebhook`) in `decision`, one per policy and autogen variant, in load order. Evaluate with
 * `explain: true`: without it, policies the selector index ruled out have no trace and read as `none`.
 * The object every policy left is `decision.mutated`.
 */
export function mutatingPolicyResults(policies: PolicySet, decision: Decision): MutatingPolicyResult[] {
  const registry = registryOf(policies);
  if (!registry) return [];
  const out: MutatingPolicyResult[] = [];
  for (const variant of registry.kyvernoMutating.values()) {
    const mine = ofVariant(variant);
    const trace = decision.trace.find(mine);
    const base = { ...resultBase(variant), patch: trace?.patch ?? [] };
    const error = decision.errors.find(mine);
    const skipped = trace?.rules.find((r) => r.result === 'skipped' && r.message?.startsWith('matchCondition'));
    if (error) out.push({ ...base, result: 'error', message: mutatingPolicyError(error) });
    else if (!trace) out.push({ ...base, result: 'none' });
    else if (!trace.matched) out.push({ ...base, ...unmatched(trace) });
    else if (skipped && trace.rules.every((r) => r.result === 'skipped')) out.push({ ...base, result: 'skip', message: skipped.message! });
    else out.push({ ...base, result: 'pass' });
  }
  return out;
}
