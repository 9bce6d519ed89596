/**
 * What the adapter remembers about policies it translated, to answer as the
 * apiserver (ValidatingAdmissionPolicy) or Gatekeeper (CEL templates) would.
 */
import type { PolicySet } from '@verdict/core';
import type { KyvernoVariant } from '../kyverno/translate.js';
import type { MutatingVariant } from '../mpol/translate.js';
import type { PolicyValidation, ValidationAction } from './types.js';

/** A ValidatingAdmissionPolicyBinding, as a compiled policy. */
export interface BindingInfo {
  policy: string;
  binding: string;
  actions: readonly ValidationAction[];
  failurePolicy: 'Fail' | 'Ignore';
  /** The policy's validations, by index (`reason`, and `expression` for error messages). */
  validations: readonly PolicyValidation[];
}

/** Everything translated in one policy set. */
export class TranslationRegistry {
  /** Bindings by `ValidatingAdmissionPolicyBinding/<name>`. */
  readonly bindings = new Map<string, BindingInfo>();
  /** Gatekeeper CEL templates, by the constraint kind they define. */
  readonly celKinds = new Map<string, { failurePolicy: 'Fail' | 'Ignore'; validations: readonly PolicyValidation[] }>();

  /** MutatingAdmissionPolicyBindings by name: the policy they bind. */
  readonly mutating = new Map<string, { policy: string; binding: string }>();

  /** Kyverno policies (each autogen variant too), by `<kind>\u0000<name>` of the compiled policy. */
  readonly kyverno = new Map<string, KyvernoVariant>();

  /** Kyverno MutatingPolicies (each autogen variant too), by `<kind>\u0000<name>` of the compiled policy. */
  readonly kyvernoMutating = new Map<string, MutatingVariant>();

  /** The Kyverno MutatingPolicy behind a decision entry (`kind`, `policy`), if it is one. */
  kyvernoMutatingOf(kind: string | undefined, policy: string | undefined): MutatingVariant | undefined {
    return kind === undefined || policy === undefined ? undefined : this.kyvernoMutating.get(`${kind}\u0000${policy}`);
  }

  /** The Kyverno policy behind a decision entry (`kind`, `policy`), if it is one. */
  kyvernoOf(kind: string | undefined, policy: string | undefined): KyvernoVariant | undefined {
    return kind === undefined || policy === undefined ? undefined : this.kyverno.get(`${kind}\u0000${policy}`);
  }

  /** The MutatingAdmissionPolicyBinding behind a decision entry (`kind`, `policy`), if it is one. */
  mutatingBinding(kind: string | undefined, policy: string | undefined): { policy: string; binding: string } | undefined {
    return kind === MUTATING_BINDING_KIND && policy !== undefined ? this.mutating.get(policy) : undefined;
  }

  /** The binding behind a decision entry (`kind`, `policy`), if it is one. */
  binding(kind: string | undefined, policy: string | undefined): BindingInfo | undefined {
    return kind === BINDING_KIND && policy !== undefined ? this.bindings.get(policy) : undefined;
  }

  get empty(): boolean {
    return this.bindings.size === 0 && this.celKinds.size === 0 && this.kyverno.size === 0 && this.mutating.size === 0 && this.kyvernoMutating.size === 0;
  }
}

/** The kind of the compiled policy of each binding (its name is the binding's). */
export const BINDING_KIND = 'ValidatingAdmissionPolicyBinding';

/** The kind of the compiled policy of each MutatingAdmissionPolicyBinding. */
export const MUTATING_BINDING_KIND = 'MutatingAdmissionPolicyBinding';

const registries = new WeakMap<PolicySet, TranslationRegistry>();

/** Remembers what was translated into `set`. */
export function register(set: PolicySet, registry: TranslationRegistry): void {
  if (!registry.empty) registries.set(set, registry);
}

/** What was translated into `set` (nothing for sets without Kubernetes-native policies). */
export function registryOf(set: PolicySet | undefined): TranslationRegistry | undefined {
  return set ? registries.get(set) : undefined;
}
