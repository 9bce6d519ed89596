/**
 * Workload 3 (target 3): `createAdmissionWebhook({policies}).review()` of a
 * ~2 KB Pod AdmissionReview end to end, against `PolicySet.evaluate` of the
 * input the adapter builds from it (same policy set, same input). Also checks
 * that a validating review never copies the Pod (the input's `object` is the
 * request's own object) and that a mutating one leaves it untouched.
 */
import type { Decision } from '@verdict/core';
import { admissionReviewFor, createAdmissionWebhook, toAdmissionInput, type AdmissionInput, type AdmissionReview, type KubernetesObject } from '@verdict/kubernetes';
import type { Job } from '../jobs.js';
import { measure, type Case, type Group } from '../method.js';
import { goodPods, rotate, type Pod } from '../pods.js';
import { PROJECT_KEY, RULE_POLICIES } from './rule.js';

const MUTATE_POLICY = `
---
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: add-checked-label}
spec:
  mutate:
    - name: label
      patch:
        - {op: add, path: /metadata/labels/verdict.dev~1checked, value: "true"}
`;

/** A Pod of about 2 KB: the workload-1 Pod with the volumes, tolerations and env a real Pod carries. */
export function reviewPod(i: number): Pod {
  const pod = goodPods()[i % 8]!;
  pod.spec['volumes'] = [{ name: 'config', configMap: { name: `app-${i}-config` } }, { name: 'tmp', emptyDir: {} }];
  pod.spec['tolerations'] = [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }];
  pod.spec['nodeSelector'] = { 'kubernetes.io/os': 'linux' };
  pod.spec.containers[0]!['env'] = [{ name: 'LOG_LEVEL', value: 'info' }, { name: 'REGION', value: 'eu-west-1' }, { name: 'FEATURE_FLAGS', value: 'a,b,c' }];
  return pod;
}

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`sanity check failed: ${what}`);
}

export async function reviewWorkload(): Promise<Group> {
  // The host's namespace lookup, as a cache answers it (no allocation per request).
  const known = new Map<string, Record<string, string>>();
  const namespaceLabels = (name: string) => {
    let labels = known.get(name);
    if (!labels) known.set(name, (labels = { [PROJECT_KEY]: `project-${name}`, 'kubernetes.io/metadata.name': name }));
    return labels;
  };
  let inputs: AdmissionInput[] = [];
  // A host's hook (logs, metrics) runs on every review; it keeps the inputs only during the sanity checks.
  let recording = true;
  const webhook = createAdmissionWebhook({ policies: RULE_POLICIES, namespaceLabels, onDecision: ({ input }) => recording && input && inputs.push(input) });
  const mutating = createAdmissionWebhook({ policies: RULE_POLICIES + MUTATE_POLICY, namespaceLabels, mutating: true });
  const reviews: AdmissionReview[] = Array.from({ length: 8 }, (_, i) => admissionReviewFor(reviewPod(i) as unknown as KubernetesObject, { uid: `uid-${i}` }));
  const bodies = reviews.map((r) => JSON.stringify(r));
  const evalInputs = reviews.map((r) => toAdmissionInput(r, { namespaceLabels: namespaceLabels((r.request as { namespace: string }).namespace) }));
  const set = webhook.policies;

  // Sanity: allowed, no copy of the Pod, the caller's object untouched by a mutating review; a bad Pod is denied.
  let clones = 0;
  for (const r of reviews) {
    inputs = [];
    const response = (await webhook.review(r)) as { response: { allowed: boolean; uid: string } };
    expect(response.response.allowed && response.response.uid === r.request!.uid, 'review allows the good Pods and echoes the uid');
    if (inputs[0]?.object !== r.request!.object) clones++;
    const before = JSON.stringify(r);
    const m = (await mutating.review(r)) as { response: { allowed: boolean; patch?: string } };
    expect(m.response.allowed && typeof m.response.patch === 'string', 'the mutating review answers with a patch');
    expect(JSON.stringify(r) === before, 'a mutating review leaves the caller\'s AdmissionReview untouched');
  }
  for (const input of evalInputs) expect((set.evaluate(input, { mutate: false }) as Decision).allowed, 'evaluate allows the good Pods');
  const bad = goodPods()[0]!;
  bad.spec.containers[1]!.resources.limits.memory = '20Gi';
  const denied = (await webhook.review(admissionReviewFor(bad as unknown as KubernetesObject))) as { response: { allowed: boolean; status?: { code?: number } } };
  expect(!denied.response.allowed, 'review denies a Pod over the limit');
  recording = false;
  inputs = [];

  const nextInput = rotate(evalInputs);
  const nextReview = rotate(reviews);
  const nextBody = rotate(bodies);
  const nextMut = rotate(reviews);
  const nextReq = rotate(bodies);
  const cases: Case[] = [
    { name: 'verdict `PolicySet.evaluate(input, {mutate: false})` (the input review() builds)', engine: 'verdict', reference: true, fn: () => set.evaluate(nextInput(), { mutate: false }) },
    { name: '`webhook.review(admissionReview)` (validating)', engine: 'verdict-review', fn: () => webhook.review(nextReview()) },
    { name: '`JSON.parse(body)` → `review` → `JSON.stringify` (bytes in, bytes out)', engine: 'verdict-review-json', fn: () => JSON.stringify(webhook.review(JSON.parse(nextBody()))) },
    { name: '`JSON.parse(body)` alone (for scale)', engine: 'json-parse', fn: () => JSON.parse(nextBody()) },
    { name: '`webhook.review` mutating (adds a label: copy-on-write + JSONPatch)', engine: 'verdict-review-mutating', fn: () => mutating.review(nextMut()) },
    {
      name: '`webhook.handle(new Request(…))` → `response.text()` (Fetch API, async)', engine: 'verdict-handle', async: true,
      fn: async () => (await webhook.handle(new Request('https://127.0.0.1/validate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: nextReq() }))).text(),
    },
  ];
  return {
    id: 'review',
    title: 'Workload 3: `review()` of a Pod AdmissionReview (@verdict/kubernetes)',
    cases,
    info: { admissionReviewBytes: bodies[0]!.length, podBytes: JSON.stringify(reviews[0]!.request!.object).length, clonesWithoutMutation: clones },
  };
}

export function jobs(): Promise<Job[]> {
  return Promise.resolve([{ id: 'review', run: async (t) => [await measure(await reviewWorkload(), t)] }]);
}
