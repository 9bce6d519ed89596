/** Kyverno's MutatingPolicy and NamespacedMutatingPolicy (`policies.kyverno.io`), as verdict reads them. */
import type { Mutation } from '../map/types.js';
import type { NamedExpression } from '../vap/types.js';

/** The two kinds of Kyverno's CEL mutating policies. */
export type KyvernoMutatingKind = 'MutatingPolicy' | 'NamespacedMutatingPolicy';

/** A MutatingPolicy after its creation-time checks, with Kyverno's defaults applied. */
export interface KyvernoMutatingPolicy {
  kind: KyvernoMutatingKind;
  name: string;
  /** The namespace of a NamespacedMutatingPolicy (it applies only to requests in it). */
  namespace?: string;
  /** Index of the document in the loaded list. */
  document: number;
  /** `Fail` (default): an error denies the request; `Ignore`: the policy's mutations are left out. */
  failurePolicy: 'Fail' | 'Ignore';
  /** `IfNeeded`: run once more when a later policy changed the object (default `Never`). */
  reinvocationPolicy: 'Never' | 'IfNeeded';
  /** The MatchResources block as written. */
  matchConstraints: Readonly<Record<string, unknown>>;
  matchConditions: NamedExpression[];
  variables: NamedExpression[];
  mutations: Mutation[];
  /** `evaluation.useServerSideApply`: apply configurations may replace atomic lists, maps and structs. */
  serverSideApply: boolean;
  /** `evaluation.admission.enabled` (default true). */
  admission: boolean;
  /** `evaluation.background.enabled` (default true). */
  background: boolean;
  /** `autogen.podControllers.controllers` as written (`undefined`: every controller Kyverno knows). */
  controllers?: readonly string[];
  /** The spec as written (autogen rewrites a copy of it). */
  spec: Readonly<Record<string, unknown>>;
}
