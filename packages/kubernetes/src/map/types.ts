/** MutatingAdmissionPolicy and its binding (`admissionregistration.k8s.io` v1, v1beta1, v1alpha1), as verdict reads them. */
import type { BindingCommon, PolicyCommon } from '../vap/types.js';

/** How a mutation's expression is applied: a list of JSON Patch operations, or an object merged into the object. */
export type MutationPatchType = 'JSONPatch' | 'ApplyConfiguration';

/** One entry of `spec.mutations`. */
export interface Mutation {
  patchType: MutationPatchType;
  /** The CEL expression as written (`jsonPatch.expression` or `applyConfiguration.expression`). */
  expression: string;
}

/** A MutatingAdmissionPolicy after its creation-time checks. */
export interface MutatingPolicy extends PolicyCommon {
  mutations: Mutation[];
  /** `IfNeeded`: run once more when a later policy changed the object after it (default `Never`). */
  reinvocationPolicy: 'Never' | 'IfNeeded';
}

/** A MutatingAdmissionPolicyBinding after its creation-time checks. */
export type MutatingBinding = BindingCommon;
