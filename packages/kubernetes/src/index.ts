/**
 * @verdict/kubernetes: admission webhooks on verdict. AdmissionReview v1 in,
 * AdmissionReview out; Gatekeeper's `match` and webhook `rules` as a core
 * match dialect; namespace labels from a host lookup; a Node request listener
 * and a Fetch-API handler.
 * @packageDocumentation
 */
export { createAdmissionWebhook, DEFAULT_MAX_BODY_BYTES, type AdmissionWebhook, type AdmissionWebhookOptions, type DecisionEvent } from './webhook.js';
export type { NodeListener, NodeRequest, NodeResponse } from './listener.js';
export { kubernetesDialect, MUTATION_TARGET } from './dialect.js';
export { loadKubernetesPolicies, type KubernetesLoadOptions } from './load.js';
export type { CueOptions } from './kinitiras/cue.js';
export { ParamCache, type ParamLookup, type ParamQuery } from './vap/params.js';
export { VALIDATION_FAILURE_ANNOTATION } from './vap/answer.js';
export { validatingPolicyResults, type ValidatingPolicyResult } from './kyverno/results.js';
export type { EvaluationMode } from './kyverno/translate.js';
export { mutatingPolicyResults, type MutatingPolicyResult } from './mpol/results.js';
export type { KyvernoMutatingKind } from './mpol/types.js';
export type { KyvernoPolicyKind } from './kyverno/types.js';
export { toAdmissionInput, NAMESPACE_NAME_LABEL } from './toInput.js';
export { toAdmissionResponse, FAILED_OPEN_ANNOTATION, type FailurePolicy, type ResponseOptions } from './toResponse.js';
export { NamespaceCache, type NamespaceLabelsLookup, type NamespaceWatchEvent } from './namespaces.js';
export { InventoryCache, type Inventory, type InventorySource, type InventoryTree } from './inventory.js';
export { admissionReviewFor, type AdmissionReviewOptions } from './fixtures.js';
export { applyApiServerDefaults } from './defaults/apply.js';
export { verifyAdmissionResponse, type VerifyOptions } from './verify.js';
export { HTTP_STATUS } from './http.js';
export { AdmissionError, type AdmissionErrorCode } from './errors.js';
export type {
  AdmissionInput, AdmissionRequest, AdmissionResponse, AdmissionReview, AdmissionReviewResponse, AdmissionStatus,
  GroupVersionKind, GroupVersionResource, KubernetesObject, LabelMap, Operation, UserInfo,
} from './types.js';
