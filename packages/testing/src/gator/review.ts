/**
 * Reviewing a gator case's object with `@verdict/kubernetes` (an optional peer,
 * loaded only when a gator suite runs). A case's inventory is `data.inventory`
 * (and its Namespaces give namespace labels). gator's results are every violation
 * of the constraint, whatever its enforcementAction, and every evaluation
 * error of it (Gatekeeper turns them into results too).
 */
import type { Decision, PolicyDocument } from '@verdict/core';
import { admissionReviewFor, createAdmissionWebhook, InventoryCache, type AdmissionInput, type AdmissionReview, type Inventory, type KubernetesObject, type Operation } from '@verdict/kubernetes';
import { SuiteError } from '../errors.js';
import { toOutcome, type Outcome } from '../outcome.js';

type Raw = Record<string, unknown>;

const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * An AdmissionReview v1 for a case's object, as gator reviews it: a bare
 * object is a CREATE; an AdmissionReview (any `admission.k8s.io` version,
 * e.g. upstream's `v1beta1` samples) keeps what its request says and gets
 * what it leaves out (uid, kind, resource, name, namespace) from its object.
 */
export function gatorReview(value: unknown, label: string): AdmissionReview {
  if (!isObject(value)) throw new SuiteError('FILE_UNREADABLE', `${label} must hold a Kubernetes object or an AdmissionReview`);
  const isReview = value['kind'] === 'AdmissionReview' && typeof value['apiVersion'] === 'string' && value['apiVersion'].startsWith('admission.k8s.io/');
  if (!isReview) return admissionReviewFor(value);
  const request = value['request'];
  if (!isObject(request)) throw new SuiteError('FILE_UNREADABLE', `${label}: the AdmissionReview has no request to review`);
  const object = isObject(request['object']) ? request['object'] : null;
  const old = isObject(request['oldObject']) ? request['oldObject'] : null;
  if (!object && !old) throw new SuiteError('FILE_UNREADABLE', `${label}: the AdmissionRequest does not contain an "object" or "oldObject" to review`);
  const operation = (typeof request['operation'] === 'string' ? request['operation'] : object ? 'CREATE' : 'DELETE') as Operation;
  const base = admissionReviewFor(object ?? old, { operation, ...(object && old ? { oldObject: old } : {}) });
  const given = Object.fromEntries(Object.entries(request).filter(([, v]) => v !== undefined && v !== null && v !== ''));
  return { ...base, request: { ...base.request, ...given, object, oldObject: old } as AdmissionReview['request'] };
}

/** Labels of the Namespace objects among inventory objects, for the namespace lookup. */
function namespacesOf(inventory: readonly unknown[]): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const o of inventory) {
    if (!isObject(o) || o['kind'] !== 'Namespace' || !isObject(o['metadata']) || typeof o['metadata']['name'] !== 'string') continue;
    const labels = o['metadata']['labels'];
    out.set(o['metadata']['name'], isObject(labels) ? (labels as Record<string, string>) : {});
  }
  return out;
}

/** Messages of gator's results for a decision: each violation, then each error that was not ignored. */
export function gatorResults(decision: Decision | undefined): string[] {
  if (!decision) return [];
  return [...decision.violations.map((v) => v.message), ...decision.errors.filter((e) => !e.ignored).map((e) => e.message)];
}

/** Reviews objects against one test's policies; throws core's `PolicyLoadError` when they do not load. */
export function createGatorReviewer(documents: readonly PolicyDocument[]): (object: unknown, options: { label: string; inventory: readonly unknown[] }) => Promise<Outcome> {
  let namespaces = new Map<string, Record<string, string>>();
  let inventory: Inventory | undefined;
  let seen: { input?: AdmissionInput; decision?: Decision } = {};
  const webhook = createAdmissionWebhook({
    policies: documents,
    namespaceLabels: (name) => namespaces.get(name),
    inventory: () => inventory,
    onDecision: (event) => {
      seen = event;
    },
  });
  return async (object, options) => {
    const { label } = options;
    namespaces = namespacesOf(options.inventory);
    inventory = options.inventory.length > 0 ? new InventoryCache({ objects: options.inventory.filter(isObject) as KubernetesObject[] }).data : undefined;
    seen = {};
    const response = await webhook.review(gatorReview(object, label));
    // The webhook evaluates through the selector index; explain mode traces every policy.
    const explained = seen.input ? webhook.policies.evaluate(seen.input, { explain: true, mutate: false }) : undefined;
    return { ...toOutcome(response, explained), denials: gatorResults(seen.decision) };
  };
}
