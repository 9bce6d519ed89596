/**
 * Reviewing a Kyverno test's resources with `@verdict/kubernetes` (an optional
 * peer, loaded only when a Kyverno test runs), as `kyverno test` does: every
 * policy takes part whatever its `evaluation` settings, a resource is a request
 * of the operation asked for (CREATE: the object; UPDATE: object and oldObject
 * both the resource; DELETE: oldObject only) in the namespace it names (none
 * when it names none), by the test's user (empty by default), and namespaces
 * have the labels of the values file (else only `kubernetes.io/metadata.name`).
 * A test with MutatingPolicies is reviewed by a mutating webhook: each policy
 * on the object as the ones before it left it, as Kyverno's engine applies them.
 */
import type { PolicyDocument } from '@verdict/core';
import {
  admissionReviewFor, createAdmissionWebhook, mutatingPolicyResults, validatingPolicyResults,
  type AdmissionInput, type AdmissionReviewResponse, type KubernetesObject, type MutatingPolicyResult, type UserInfo, type ValidatingPolicyResult,
} from '@verdict/kubernetes';

/** What one review of a resource gave. */
export interface KyvernoReview {
  response: AdmissionReviewResponse;
  results: ValidatingPolicyResult[];
  /** The results of the MutatingPolicies (empty when the test has none). */
  mutating: MutatingPolicyResult[];
  /** The resource as every MutatingPolicy left it (the resource itself when none changed it). */
  patched: KubernetesObject;
}

/** How a resource is reviewed. */
export interface KyvernoReviewOptions {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  userInfo: Record<string, unknown>;
}

type Raw = Record<string, unknown>;
const MUTATING_KINDS = ['MutatingPolicy', 'NamespacedMutatingPolicy'];
const isRaw = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Fields Kyverno's CLI turns from null into empty maps when it reads a resource (`normalizeNilMaps`). */
const MAP_FIELDS = new Set(['annotations', 'labels', 'matchLabels', 'nodeSelector', 'data', 'stringData']);

function normalizeNilMaps(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeNilMaps);
  if (!isRaw(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, v === null && MAP_FIELDS.has(k) ? {} : normalizeNilMaps(v)]));
}

/**
 * A resource as Kyverno's CLI reads it: nil maps made empty, and a namespaced
 * resource without a namespace put in `default` (cluster-scoped kinds by the
 * adapter's list of well-known ones).
 */
export function prepareResource(resource: Raw): KubernetesObject {
  const object = normalizeNilMaps(resource) as KubernetesObject;
  const metadata = isRaw(object['metadata']) ? object['metadata'] : {};
  if (typeof metadata['namespace'] === 'string' && metadata['namespace'] !== '') return object;
  if (object['kind'] === 'Namespace') return object;
  const namespace = admissionReviewFor(object, { uid: 'probe', userInfo: { username: '' } }).request.namespace ?? '';
  return namespace === '' ? object : { ...object, metadata: { ...metadata, namespace } };
}

/** Reviews resources against one test's policies; throws core's `PolicyLoadError` when they do not load. */
export function createKyvernoReviewer(documents: readonly PolicyDocument[], namespaces: ReadonlyMap<string, Record<string, string>>): (resource: KubernetesObject, options: KyvernoReviewOptions) => Promise<KyvernoReview> {
  let seen: AdmissionInput | undefined;
  const mutating = documents.some((d) => MUTATING_KINDS.includes(String(d['kind'])) && String(d['apiVersion']).startsWith('policies.kyverno.io/'));
  const webhook = createAdmissionWebhook({
    policies: documents,
    mutating,
    evaluation: 'all',
    namespaceLabels: (name) => namespaces.get(name) ?? {},
    onDecision: (event) => {
      seen = event.input;
    },
  });
  return async (resource, options) => {
    const metadata = isRaw(resource['metadata']) ? resource['metadata'] : {};
    const namespace = resource['kind'] === 'Namespace' ? String(metadata['name'] ?? '') : typeof metadata['namespace'] === 'string' ? metadata['namespace'] : '';
    const review = admissionReviewFor(options.operation === 'DELETE' ? null : resource, {
      operation: options.operation,
      ...(options.operation === 'CREATE' ? {} : { oldObject: resource }),
      namespace,
      userInfo: options.userInfo as UserInfo,
    });
    seen = undefined;
    const response = await webhook.review(review);
    // The webhook evaluates through the selector index; explain mode traces every policy.
    const decision = seen ? webhook.policies.evaluate(seen, { explain: true, mutate: mutating }) : undefined;
    return {
      response,
      results: decision ? validatingPolicyResults(webhook.policies, decision) : [],
      mutating: decision ? mutatingPolicyResults(webhook.policies, decision) : [],
      patched: (decision?.mutated as KubernetesObject | undefined) ?? resource,
    };
  };
}
