/**
 * Per-policy results of Kyverno ValidatingPolicies for one decision, as Kyverno
 * reports them (PolicyReport results, `kyverno test`): `pass`, `fail` (with the
 * message), `skip` (a matchCondition was false), `error`, for the policy and
 * each autogen variant; `none` when the request is not one the variant matches.
 */
import type { Decision, PolicyTrace, PolicySet } from '@verdict/core';
import { registryOf } from '../vap/registry.js';
import { kyvernoError } from './answer.js';
import type { KyvernoPolicyKind } from './types.js';
import type { CompiledVariant } from './units.js';

/** One Kyverno policy (or autogen variant) on one request. */
export interface ValidatingPolicyResult {
  /** `ValidatingPolicy` or `NamespacedValidatingPolicy`. */
  kind: KyvernoPolicyKind;
  /** `metadata.name` of the policy. */
  name: string;
  /** `metadata.namespace` of a NamespacedValidatingPolicy. */
  namespace?: string;
  /** The autogen variant that answered (`defaults`: Deployments and the like, `cronjobs`); absent for the policy as written. */
  autogen?: string;
  /** `none`: the request is not one the variant's matchConstraints select. */
  result: 'pass' | 'fail' | 'skip' | 'error' | 'none';
  /** The failure's message, the error, or why it was skipped. */
  message?: string;
  /** The variant's matchConstraints (generated for an autogen variant). */
  matchConstraints: Readonly<Record<string, unknown>>;
}

type Variant<K extends string> = CompiledVariant<{ name: string; namespace?: string }, K>;

/** The fields every result of a variant carries (its policy, autogen config and matchConstraints). */
export function resultBase<K extends string>(variant: Variant<K>) {
  const { policy } = variant;
  return {
    kind: variant.kind, name: policy.name, matchConstraints: variant.matchConstraints,
    ...(policy.namespace !== undefined ? { namespace: policy.namespace } : {}),
    ...(variant.autogen !== undefined ? { autogen: variant.autogen } : {}),
  };
}

/** Whether a trace, error or violation is the variant's. */
export const ofVariant = (variant: Variant<string>) => (x: { kind?: string | undefined; policy?: string | undefined }): boolean => x.kind === variant.kind && x.policy === variant.name;

/** The result of a variant whose trace did not match: `skip` when a matchCondition was false, `none` otherwise. */
export function unmatched(trace: PolicyTrace): { result: 'skip'; message: string } | { result: 'none' } {
  const at = trace.mismatch?.at ?? '';
  return at.startsWith('/spec/matchConditions') ? { result: 'skip', message: trace.mismatch?.selector ?? '' } : { result: 'none' };
}

/**
 * The result of every Kyverno ValidatingPolicy of `policies` (loaded with
 * `loadKubernetesPolicies` or `createAdmissionWebhook`) in `decision`, one per
 * policy and autogen variant, in load order. Evaluate with `explain: true`:
 * without it, policies the selector index ruled out have no trace and read as `none`.
 */
export function validatingPolicyResults(policies: PolicySet, decision: Decision): ValidatingPolicyResult[] {
  const registry = registryOf(policies);
  if (!registry) return [];
  const out: ValidatingPolicyResult[] = [];
  for (const variant of registry.kyverno.values()) {
    const base = resultBase(variant);
    const mine = ofVariant(variant);
    const error = decision.errors.find(mine);
    const trace = decision.trace.find(mine);
    if (error && !error.ignored) out.push({ ...base, result: 'error', message: kyvernoError(error) });
    else if (!trace) out.push({ ...base, result: 'none' });
    else if (!trace.matched) out.push({ ...base, ...unmatched(trace) });
    else {
      const violation = decision.violations.find(mine);
      out.push(violation ? { ...base, result: 'fail', message: violation.message } : { ...base, result: 'pass' });
    }
  }
  return out;
}
