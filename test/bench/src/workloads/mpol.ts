/**
 * The same mutation through `@verdict/kubernetes` `review()` in a mutating
 * webhook: as a MutatingAdmissionPolicy with its binding (the reference) and
 * as a Kyverno MutatingPolicy (autogen variants included, as Kyverno loads
 * it): every container's `imagePullPolicy` set to `Always` (an
 * ApplyConfiguration merged by name) and a `team` label (a JSONPatch). Target:
 * the MutatingPolicy no more costly than the MutatingAdmissionPolicy.
 */
import { admissionReviewFor, createAdmissionWebhook, type AdmissionReview, type AdmissionWebhook, type KubernetesObject } from '@verdict/kubernetes';
import type { Job } from '../jobs.js';
import { measure, type Case, type Group } from '../method.js';
import { goodPods, rotate } from '../pods.js';

const PODS = `{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}`;
const MUTATIONS = `
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: >
          Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, imagePullPolicy: "Always"})}}
    - patchType: JSONPatch
      jsonPatch:
        expression: '[JSONPatch{op: "add", path: "/metadata/labels/team", value: "platform"}]'`;

const MAP = `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: pull-and-label.example.com}
spec:
  matchConstraints: {resourceRules: [${PODS}]}
  mutations:${MUTATIONS}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: pull-and-label}
spec: {policyName: pull-and-label.example.com}
`;

const MPOL = `
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: pull-and-label}
spec:
  matchConstraints: {resourceRules: [${PODS}]}
  mutations:${MUTATIONS}
`;

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`sanity check failed: ${what}`);
}

/** The patch of an answer, decoded. */
async function patchOf(webhook: AdmissionWebhook, review: AdmissionReview): Promise<string> {
  const { response } = await webhook.review(review);
  return response.allowed && response.patch ? Buffer.from(response.patch, 'base64').toString('utf8') : '';
}

export async function mpolWorkload(): Promise<Group> {
  const webhooks = { map: createAdmissionWebhook({ policies: MAP, mutating: true }), mpol: createAdmissionWebhook({ policies: MPOL, mutating: true }) };
  // Pods without a team label, so that both forms add it.
  const reviews = goodPods((i) => ({ labels: { app: `app-${i}` } })).map((pod, i) => admissionReviewFor(pod as unknown as KubernetesObject, { uid: `uid-${i}` }));
  for (const review of reviews) {
    const patch = await patchOf(webhooks.map, review);
    expect(patch.includes('/imagePullPolicy') && patch.includes('/metadata/labels/team'), 'the MutatingAdmissionPolicy patches the Pod');
    expect(await patchOf(webhooks.mpol, review) === patch, 'the MutatingPolicy gives the same patch');
  }
  const next = rotate(reviews);
  const cases: Case[] = [
    { name: 'MutatingAdmissionPolicy + binding: `webhook.review` (mutating)', engine: 'verdict-map', reference: true, fn: () => webhooks.map.review(next()) },
    { name: 'Kyverno MutatingPolicy (with its autogen variants): `webhook.review` (mutating)', engine: 'verdict-mpol', fn: () => webhooks.mpol.review(next()) },
  ];
  return {
    id: 'mpol',
    title: 'The same mutation through a mutating `review()`: MutatingAdmissionPolicy vs Kyverno MutatingPolicy (Pod with 3 containers)',
    cases,
    info: { pods: reviews.length },
  };
}

export function jobs(): Promise<Job[]> {
  return Promise.resolve([{ id: 'mpol', run: async (t) => [await measure(await mpolWorkload(), t)] }]);
}
