/**
 * Shared test helpers. Every response in this suite goes through `checked`,
 * which runs the kube-apiserver's checks (verifyAdmissionResponse) and, for a
 * patch, applies it to the request's object as the apiserver would.
 */
import jsonpatch, { type Operation } from 'fast-json-patch';
import { expect } from 'vitest';
import {
  admissionReviewFor, createAdmissionWebhook, verifyAdmissionResponse,
  type AdmissionReview, type AdmissionReviewOptions, type AdmissionReviewResponse, type AdmissionWebhook, type AdmissionWebhookOptions, type KubernetesObject,
} from '@verdict/kubernetes';

export interface Checked {
  response: AdmissionReviewResponse['response'];
  /** The decoded JSON Patch, when there is one. */
  patch?: unknown[];
  /** The object after applying the patch (the request's object is left untouched). */
  patched?: unknown;
}

/** Decodes and applies a base64 JSON Patch the way the apiserver does. */
export function applyPatch(object: unknown, patch: string): { ops: unknown[]; patched: unknown } {
  const ops = JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as Operation[];
  const copy: unknown = structuredClone(object);
  const patched = jsonpatch.applyPatch(copy, structuredClone(ops), true, true).newDocument;
  return { ops, patched };
}

/** Asserts that a response passes every apiserver check for `review`, then returns it. */
export function verify(review: AdmissionReview, answer: AdmissionReviewResponse, mutating: boolean): Checked {
  const request = review.request;
  const problems = verifyAdmissionResponse(answer, { uid: request.uid, mutating, object: request.object ?? null });
  expect(problems, 'the apiserver would reject or alter this response').toEqual([]);
  const out: Checked = { response: answer.response };
  if (answer.response.patch) {
    const { ops, patched } = applyPatch(request.object, answer.response.patch);
    out.patch = ops;
    out.patched = patched;
  }
  return out;
}

/** Reviews through the webhook (awaiting an async lookup) and verifies the answer. */
export async function checked(webhook: AdmissionWebhook, review: AdmissionReview, mutating = false): Promise<Checked> {
  const before = JSON.stringify(review);
  const answer = await webhook.review(review);
  expect(JSON.stringify(review), 'the request must not be modified').toBe(before);
  return verify(review, answer, mutating);
}

/** A webhook plus a `run(object, options)` shortcut that builds, reviews and verifies. */
export function webhookFor(options: AdmissionWebhookOptions) {
  const webhook = createAdmissionWebhook(options);
  const run = (object: KubernetesObject | null, reviewOptions: AdmissionReviewOptions = {}) =>
    checked(webhook, admissionReviewFor(object, reviewOptions), options.mutating === true);
  return { webhook, run };
}

let counter = 0;
/** A unique name, so tests never share objects by accident. */
export function uniqueName(prefix = 'obj'): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

export function pod(options: { name?: string; namespace?: string; labels?: Record<string, string>; memory?: string; image?: string; generateName?: string } = {}): KubernetesObject {
  const metadata: Record<string, unknown> = {};
  if (options.name !== undefined || options.generateName === undefined) metadata['name'] = options.name ?? uniqueName('pod');
  if (options.generateName !== undefined) metadata['generateName'] = options.generateName;
  if (options.namespace !== undefined) metadata['namespace'] = options.namespace;
  if (options.labels) metadata['labels'] = options.labels;
  const resources = options.memory === undefined ? {} : { limits: { memory: options.memory } };
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: { containers: [{ name: 'app', image: options.image ?? 'internal.artifactory.example.com/app:1', resources }] } };
}

export function namespace(name: string, labels: Record<string, string> = {}, annotations?: Record<string, string>): KubernetesObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels, ...(annotations ? { annotations } : {}) } };
}

/** A template whose rule always fails with a fixed message: it shows whether its constraint matched. */
export const FLAG_TEMPLATE = `
apiVersion: verdict.dev/v1
kind: PolicyTemplate
metadata: {name: flag}
spec:
  kind: Flag
  validate:
    - name: flag
      rule: false
      message: "matched {{name}}"
`;

/** One Flag constraint with the given match (YAML flow or block text indented under match:). */
export function flagPolicy(match: unknown, extra: Record<string, unknown> = {}): unknown[] {
  return [
    { apiVersion: 'verdict.dev/v1', kind: 'PolicyTemplate', metadata: { name: 'flag' }, spec: { kind: 'Flag', validate: [{ name: 'flag', rule: false, message: 'matched {{name}}' }] } },
    { kind: 'Flag', metadata: { name: 'probe' }, spec: { match, ...extra } },
  ];
}
