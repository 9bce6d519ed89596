/**
 * Kubernetes inputs: bare objects are wrapped in an AdmissionReview
 * (`admissionReviewFor`), reviews go through `createAdmissionWebhook` (with the
 * case's inventory, if any), and the decision is re-evaluated with
 * `explain: true` for a full trace unless the caller asks for `explain: false`.
 */
import type { Decision, PolicyDocument } from '@verdict/core';
import {
  admissionReviewFor as reviewFor, createAdmissionWebhook, InventoryCache,
  type AdmissionInput, type AdmissionReview, type AdmissionReviewOptions, type Inventory, type KubernetesObject, type UserInfo,
} from '@verdict/kubernetes';
import type { AdapterOptions, Evaluator, InputOptions } from '../evaluate.js';
import { toOutcome } from '../outcome.js';

/** Options of {@link admissionReviewFor}: `@verdict/kubernetes`'s, plus the namespace's labels. */
export type ReviewFixtureOptions = AdmissionReviewOptions & {
  /** Labels of the object's namespace, handed to the webhook's lookup by `evaluateInput` and suites. */
  namespaceLabels?: Record<string, string>;
};

/**
 * Where a review keeps the namespace labels it was built with: a registered
 * symbol in a non-enumerable property, so JSON and deep equality ignore it and
 * every copy of this module (the ESM and CJS builds, each entry point) sees it.
 */
const NAMESPACE_LABELS = Symbol.for('@verdict/testing.namespaceLabels');

/** The namespace labels given to {@link admissionReviewFor} for this review, if any. */
export function namespaceLabelsOf(review: unknown): Record<string, string> | undefined {
  if (typeof review !== 'object' || review === null) return undefined;
  const labels: unknown = (review as Record<symbol, unknown>)[NAMESPACE_LABELS];
  return labels === undefined ? undefined : { ...(labels as Record<string, string>) };
}

/**
 * Builds an AdmissionReview v1 for a bare object as the apiserver would send
 * it (`@verdict/kubernetes`'s `admissionReviewFor`: operation defaults to
 * CREATE, UPDATE with `oldObject`, DELETE for a `null` object), and remembers
 * `namespaceLabels` for it: an AdmissionReview does not carry them, so
 * `evaluateInput` (from `@verdict/testing`) and suites hand them to the webhook's namespace lookup.
 */
export function admissionReviewFor(object: KubernetesObject | null, options: ReviewFixtureOptions = {}): AdmissionReview {
  const { namespaceLabels, ...rest } = options;
  const review = reviewFor(object, rest);
  if (namespaceLabels) Object.defineProperty(review, NAMESPACE_LABELS, { value: { ...namespaceLabels }, enumerable: false });
  return review;
}

/** Evaluates inputs with @verdict/kubernetes's webhook: validating, like `createAdmissionWebhook`, unless `mutating: true`. */
export function createKubernetesEvaluator(documents: readonly PolicyDocument[], options: AdapterOptions): Evaluator {
  const settings = options.kubernetes ?? {};
  const namespaces = settings.namespaces ?? {};
  const mutating = settings.mutating ?? false;
  let current: Record<string, string> | undefined;
  let inventory: Inventory | undefined;
  let seen: { input?: AdmissionInput; decision?: Decision } = {};
  const webhook = createAdmissionWebhook({
    policies: documents,
    namespaceLabels: (name: string) => current ?? namespaces[name],
    inventory: () => inventory,
    ...(settings.failurePolicy ? { failurePolicy: settings.failurePolicy } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    mutating,
    onDecision: (event) => {
      seen = event;
    },
  });
  return {
    adapter: 'kubernetes',
    async evaluate(input: unknown, opts: InputOptions = {}) {
      const isReview = typeof input === 'object' && input !== null && (input as Record<string, unknown>)['kind'] === 'AdmissionReview';
      const review = isReview ? input : admissionReviewFor(input as KubernetesObject, {
        ...(opts.operation ? { operation: opts.operation } : {}),
        ...(opts.userInfo ? { userInfo: opts.userInfo as UserInfo } : {}),
        ...(opts.oldObject !== undefined ? { oldObject: opts.oldObject as KubernetesObject } : {}),
        ...(opts.defaults === true ? { defaults: true } : {}),
      });
      current = opts.namespaceLabels ?? namespaceLabelsOf(review);
      inventory = Array.isArray(opts.inventory) ? new InventoryCache({ objects: opts.inventory as KubernetesObject[] }).data : opts.inventory as Inventory | undefined;
      seen = {};
      try {
        const response = await webhook.review(review);
        let decision = seen.decision;
        if (seen.input && decision && opts.explain !== false) {
          // The webhook evaluates through the selector index; explain mode traces every policy and entry.
          decision = webhook.policies.evaluate(seen.input, { explain: true, mutate: mutating && seen.input.object !== null });
        }
        return toOutcome(response, decision);
      } finally {
        current = undefined;
        inventory = undefined;
      }
    },
  };
}
