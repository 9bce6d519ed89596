/** Kyverno's ValidatingPolicy and NamespacedValidatingPolicy (`policies.kyverno.io`), as verdict reads them. */
import type { AuditAnnotation, NamedExpression, PolicyValidation, ValidationAction } from '../vap/types.js';

/** The two kinds of Kyverno's CEL validating policies. */
export type KyvernoPolicyKind = 'ValidatingPolicy' | 'NamespacedValidatingPolicy';

/** A ValidatingPolicy after its creation-time checks, with Kyverno's defaults applied. */
export interface KyvernoPolicy {
  kind: KyvernoPolicyKind;
  name: string;
  /** The namespace of a NamespacedValidatingPolicy (it applies only to requests in it). */
  namespace?: string;
  /** Index of the document in the loaded list. */
  document: number;
  /** `Fail` (default): a matchCondition error is an error; `Ignore`: it skips the policy. */
  failurePolicy: 'Fail' | 'Ignore';
  /** The MatchResources block as written. */
  matchConstraints: Readonly<Record<string, unknown>>;
  matchConditions: NamedExpression[];
  variables: NamedExpression[];
  validations: PolicyValidation[];
  auditAnnotations: AuditAnnotation[];
  /** `validationActions`, `[Deny]` when absent or empty. */
  actions: ValidationAction[];
  /** `evaluation.admission.enabled` (default true). */
  admission: boolean;
  /** `evaluation.background.enabled` (default true). */
  background: boolean;
  /** `autogen.podControllers.controllers` as written (`undefined`: every controller Kyverno knows). */
  controllers?: readonly string[];
  /** The spec as written (autogen rewrites a copy of it). */
  spec: Readonly<Record<string, unknown>>;
}
