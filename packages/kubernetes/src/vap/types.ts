/** ValidatingAdmissionPolicy and its binding (`admissionregistration.k8s.io/v1`), as verdict reads them. */
import type { LabelSelector } from '@verdict/core';

/** What a binding does with a failed validation. */
export type ValidationAction = 'Deny' | 'Warn' | 'Audit';

/** `reason` of a validation; the answer's status code comes from it (Invalid, 422, when absent). */
export type StatusReason = 'Invalid' | 'Forbidden' | 'RequestEntityTooLarge' | 'Unauthorized';

export interface NamedExpression {
  name: string;
  expression: string;
}

export interface PolicyValidation {
  expression: string;
  message?: string;
  messageExpression?: string;
  reason?: StatusReason;
}

export interface AuditAnnotation {
  key: string;
  valueExpression: string;
}

export interface ParamKind {
  apiVersion: string;
  kind: string;
}

/** What ValidatingAdmissionPolicy and MutatingAdmissionPolicy share, after their creation-time checks. */
export interface PolicyCommon {
  name: string;
  /** Index of the document in the loaded list. */
  document: number;
  failurePolicy: 'Fail' | 'Ignore';
  paramKind?: ParamKind;
  /** The MatchResources block as written (compiled by the Kubernetes match dialect). */
  matchConstraints: Readonly<Record<string, unknown>>;
  matchConditions: NamedExpression[];
  variables: NamedExpression[];
}

/** A ValidatingAdmissionPolicy after its creation-time checks. */
export interface AdmissionPolicy extends PolicyCommon {
  validations: PolicyValidation[];
  auditAnnotations: AuditAnnotation[];
}

export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: LabelSelector;
  parameterNotFoundAction: 'Allow' | 'Deny';
}

/** What the bindings of both policy kinds share, after their creation-time checks. */
export interface BindingCommon {
  name: string;
  document: number;
  policyName: string;
  paramRef?: ParamRef;
  matchResources?: Readonly<Record<string, unknown>>;
}

/** A ValidatingAdmissionPolicyBinding after its creation-time checks. */
export interface PolicyBinding extends BindingCommon {
  validationActions: ValidationAction[];
}
