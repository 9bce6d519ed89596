/**
 * The memory-limit check through `@verdict/kubernetes` `review()` of a Pod
 * AdmissionReview: as a json-logic Policy (the reference), as a
 * ValidatingAdmissionPolicy with its binding and a ConfigMap parameter (CEL,
 * `paramRef` resolved on every request), and as a Gatekeeper ConstraintTemplate
 * with a K8sNativeValidation block and its constraint; and the VAP's
 * expression evaluated by @marcbachmann/cel-js alone (no review, no policy)
 * and by verdict's CEL planner alone (`compileCel`: the planned closures, with
 * the JSON activation converted in and the result out), so what the adapter
 * and core add is visible. Target: the
 * ValidatingAdmissionPolicy at most 2× the json-logic Policy.
 */
import { compileCel } from '@verdict/core';
import { admissionReviewFor, createAdmissionWebhook, type AdmissionReview, type AdmissionWebhook, type KubernetesObject } from '@verdict/kubernetes';
import type { Job } from '../jobs.js';
import { bareLibrary } from './cel.js';
import { measure, type Case, type Group } from '../method.js';
import { badPods, goodPods, rotate } from '../pods.js';

const PODS = `{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}`;
const CHECK = 'object.spec.containers.all(c, has(c.resources.limits.memory) && quantity(c.resources.limits.memory).compareTo(quantity(LIMIT)) <= 0)';

const JSON_LOGIC = `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: memory-limit}
spec:
  match: {rules: [${PODS}]}
  parameters: {limit: 1Gi}
  validate:
    - name: memory
      rule:
        all:
          - {var: object.spec.containers}
          - and:
              - {"!!": {var: resources.limits.memory}}
              - {"<=": [{quantity: {var: resources.limits.memory}}, {quantity: {input: parameters.limit}}]}
      message: "containers must have a memory limit of at most {{parameters.limit}}"
`;

const VAP = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: memory-limit.example.com}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints: {resourceRules: [${PODS}]}
  validations:
    - expression: "${CHECK.replace('LIMIT', 'params.data.limit')}"
      messageExpression: "'containers must have a memory limit of at most ' + params.data.limit"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: memory-limit-binding}
spec:
  policyName: memory-limit.example.com
  validationActions: [Deny]
  paramRef: {name: memory-limit, namespace: policy-config, parameterNotFoundAction: Deny}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: memory-limit, namespace: policy-config}
data: {limit: 1Gi}
`;

const GATEKEEPER = `
apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata: {name: k8smemorylimit}
spec:
  crd: {spec: {names: {kind: K8sMemoryLimit}, validation: {openAPIV3Schema: {type: object, properties: {limit: {type: string}}}}}}
  targets:
    - target: admission.k8s.gatekeeper.sh
      code:
        - engine: K8sNativeValidation
          source:
            validations:
              - expression: "${CHECK.replace('object.', 'variables.anyObject.').replace('LIMIT', 'variables.params.limit')}"
                messageExpression: "'containers must have a memory limit of at most ' + variables.params.limit"
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: K8sMemoryLimit
metadata: {name: memory-limit}
spec:
  match: {kinds: [{apiGroups: [""], kinds: [Pod]}]}
  parameters: {limit: 1Gi}
`;

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`sanity check failed: ${what}`);
}

async function allowed(webhook: AdmissionWebhook, review: AdmissionReview): Promise<boolean> {
  return (await webhook.review(review)).response.allowed;
}

export async function vapWorkload(): Promise<Group> {
  const webhooks = { jsonLogic: createAdmissionWebhook({ policies: JSON_LOGIC }), vap: createAdmissionWebhook({ policies: VAP }), gatekeeper: createAdmissionWebhook({ policies: GATEKEEPER }) };
  const reviews = goodPods().map((pod, i) => admissionReviewFor(pod as unknown as KubernetesObject, { uid: `uid-${i}` }));
  const bad = admissionReviewFor(badPods()[0] as unknown as KubernetesObject, { uid: 'bad' });
  for (const [name, webhook] of Object.entries(webhooks)) {
    for (const review of reviews) expect(await allowed(webhook, review), `${name} allows the good Pods`);
    expect(!(await allowed(webhook, bad)), `${name} denies the 20Gi Pod`);
  }
  const expression = CHECK.replace('LIMIT', 'params.data.limit');
  const bare = bareLibrary(expression);
  const params = { data: { limit: '1Gi' } };
  const objects = reviews.map((r) => ({ object: r.request.object, params }));
  const planned = compileCel(expression);
  for (const activation of objects) expect(bare(activation) === true && planned.evaluate(activation) === true, 'cel-js alone and the planner allow the good Pods');
  expect(planned.evaluate({ object: bad.request.object, params }) === false, 'the planner denies the 20Gi Pod');
  expect(bare({ object: bad.request.object, params }) === false, 'cel-js alone denies the 20Gi Pod');
  const next = rotate(reviews);
  const nextObject = rotate(objects);
  const cases: Case[] = [
    { name: 'json-logic Policy: `webhook.review(admissionReview)`', engine: 'verdict', reference: true, fn: () => webhooks.jsonLogic.review(next()) },
    { name: 'ValidatingAdmissionPolicy + binding + ConfigMap parameter (CEL): `webhook.review`', engine: 'verdict-vap', fn: () => webhooks.vap.review(next()) },
    { name: 'Gatekeeper ConstraintTemplate with K8sNativeValidation + constraint: `webhook.review`', engine: 'verdict-gatekeeper-cel', fn: () => webhooks.gatekeeper.review(next()) },
    { name: "@marcbachmann/cel-js alone: the ValidatingAdmissionPolicy's expression (bare quantity function, no review)", engine: 'cel-js', fn: () => bare(nextObject()) },
    { name: "verdict's CEL planner alone: the same expression through `compileCel(expression).evaluate` (Kubernetes quantity library, no review)", engine: 'verdict-cel-planner', fn: () => planned.evaluate(nextObject()) },
  ];
  return {
    id: 'vap',
    title: 'The memory-limit check through `review()`: json-logic Policy, ValidatingAdmissionPolicy, Gatekeeper CEL template (Pod with 3 containers)',
    cases,
    info: { pods: reviews.length, expression },
  };
}

export function jobs(): Promise<Job[]> {
  return Promise.resolve([{ id: 'vap', run: async (t) => [await measure(await vapWorkload(), t)] }]);
}
