/**
 * Random AdmissionReview bodies and CI payloads through the adapters' entry
 * points: they never throw anything but their documented errors, and every
 * answer has the documented shape (an AdmissionReview the kube-apiserver
 * accepts, a Status for bad HTTP bodies, a job response per job).
 */
import fc from 'fast-check';
import { createJobAdmission, JobAdmissionError, type JobPayload } from '@verdict/ci';
import { AdmissionError, createAdmissionWebhook, verifyAdmissionResponse } from '@verdict/kubernetes';
import { describe, expect, it } from 'vitest';
import { checkAsync, check, TIMEOUT } from './settings.js';

const pods = { kinds: [{ apiGroups: ['', 'apps'], kinds: ['Pod', 'Deployment'] }] };
const POLICIES = [
  { apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'registries' }, spec: { match: pods, validate: [{ name: 'images', forEach: { var: 'object.spec.containers' }, rule: { glob: [['registry.example.com/*', '*-*-*.internal'], { var: 'element.image' }] }, message: 'container {{element.name}} uses {{element.image}}' }] } },
  { apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'team' }, spec: { match: { ...pods, namespaceSelector: { matchLabels: { team: 'a' } } }, enforcementAction: 'warn', validate: [{ name: 'label', rule: { regex: ['^([a-z0-9]+-?)+$', { var: 'object.metadata.labels.team' }] }, message: 'team label {{object.metadata.labels.team}}' }] } },
  { apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'label' }, spec: { match: pods, mutate: [{ name: 'owner', patch: [{ op: 'add', path: '/metadata/labels/owner', value: '{{userInfo.username}}' }] }] } },
];

const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('default', 'kube-system', 'registry.example.com/app', 'a-b-c.internal', `${'a'.repeat(60)}!`));
const container = fc.record({ name: text, image: fc.oneof(text, fc.jsonValue({ maxDepth: 1 })) }, { requiredKeys: [] });
const object = fc.oneof(
  { weight: 3, arbitrary: fc.record({
    apiVersion: fc.constantFrom('v1', 'apps/v1', 7),
    kind: fc.constantFrom('Pod', 'Deployment', 'Namespace', ''),
    metadata: fc.oneof(fc.record({ name: text, namespace: text, labels: fc.dictionary(text, fc.oneof(text, fc.integer())) }, { requiredKeys: [] }), fc.jsonValue({ maxDepth: 2 })),
    spec: fc.oneof(fc.record({ containers: fc.oneof(fc.array(container, { maxLength: 4 }), fc.jsonValue({ maxDepth: 2 })) }, { requiredKeys: [] }), fc.jsonValue({ maxDepth: 2 })),
  }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);
const request = fc.record({
  uid: fc.oneof(fc.uuid(), text, fc.integer()),
  kind: fc.oneof(fc.record({ group: fc.constantFrom('', 'apps'), version: fc.constantFrom('v1'), kind: fc.constantFrom('Pod', 'Deployment', 'Namespace') }), fc.jsonValue({ maxDepth: 1 })),
  resource: fc.oneof(fc.record({ group: fc.constantFrom('', 'apps'), version: fc.constant('v1'), resource: fc.constantFrom('pods', 'deployments', 'namespaces') }), fc.jsonValue({ maxDepth: 1 })),
  subResource: fc.constantFrom('status', 'exec'),
  operation: fc.constantFrom('CREATE', 'UPDATE', 'DELETE', 'CONNECT', 'PATCH'),
  namespace: text,
  name: text,
  object,
  oldObject: object,
  userInfo: fc.oneof(fc.record({ username: text, groups: fc.array(text, { maxLength: 2 }) }), fc.jsonValue({ maxDepth: 1 })),
  dryRun: fc.boolean(),
}, { requiredKeys: ['uid'] });
const review = fc.oneof(
  { weight: 5, arbitrary: fc.record({ apiVersion: fc.constantFrom('admission.k8s.io/v1', 'admission.k8s.io/v1beta1'), kind: fc.constantFrom('AdmissionReview', 'Status'), request: fc.oneof({ weight: 5, arbitrary: request }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) }) }, { requiredKeys: ['kind', 'request'] }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

function setup() {
  const webhook = createAdmissionWebhook({ policies: POLICIES, mutating: true, namespaceLabels: (name) => (name === 'default' ? { team: 'a' } : undefined) });
  /** The uid and object the apiserver would check the answer against. */
  const sent = (body: unknown) => {
    const r = (body as { request: { uid: string; object?: unknown } }).request;
    return { uid: r.uid, mutating: true, object: r.object ?? null };
  };
  return { webhook, sent };
}

describe('fuzz: Kubernetes AdmissionReviews', () => {
  it('review() answers an AdmissionReview the apiserver accepts, or throws an AdmissionError', async () => {
    const { webhook, sent } = setup();
    await checkAsync(fc.asyncProperty(review, async (body) => {
      let answer: unknown;
      try {
        answer = await webhook.review(body);
      } catch (error) {
        expect(error).toBeInstanceOf(AdmissionError);
        return;
      }
      expect(verifyAdmissionResponse(answer, sent(body))).toEqual([]);
    }), 300);
  }, TIMEOUT);

  it('handle() never throws: 200 with such an AdmissionReview, or an error status with a Kubernetes Status body', async () => {
    const { webhook, sent } = setup();
    const body = fc.oneof({ weight: 4, arbitrary: review.map((r) => JSON.stringify(r)) }, { weight: 1, arbitrary: fc.string({ maxLength: 40 }) });
    await checkAsync(fc.asyncProperty(body, fc.constantFrom('POST', 'POST', 'PUT'), async (text, method) => {
      const response = await webhook.handle(new Request('http://127.0.0.1/validate', { method, body: text, headers: { 'content-type': 'application/json' } }));
      const json = await response.json() as Record<string, unknown>;
      if (response.status === 200) expect(verifyAdmissionResponse(json, sent(JSON.parse(text)))).toEqual([]);
      else expect(json).toMatchObject({ kind: 'Status', status: 'Failure', code: response.status });
    }), 200);
  }, TIMEOUT);
});

const variables = fc.oneof(
  fc.dictionary(fc.constantFrom('CI_PROJECT_ID', 'CI_PROJECT_PATH', 'GITLAB_USER_LOGIN', 'CI_COMMIT_REF_NAME', 'X'), fc.oneof(text, fc.integer())),
  fc.array(fc.record({ key: fc.oneof(text, fc.constant('CI_PROJECT_ID')), value: fc.oneof(text, fc.jsonValue({ maxDepth: 1 })) }, { requiredKeys: [] }), { maxLength: 4 }),
  fc.jsonValue({ maxDepth: 2 }),
);
const job = fc.record({ id: fc.oneof(fc.integer(), text, fc.jsonValue({ maxDepth: 1 })), variables, tags: fc.oneof(fc.array(text, { maxLength: 4 }), fc.jsonValue({ maxDepth: 1 })) }, { requiredKeys: [] });
const payload = fc.oneof({ weight: 4, arbitrary: job }, { weight: 2, arbitrary: fc.array(job, { maxLength: 4 }) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) });

describe('fuzz: CI job payloads', () => {
  it('admit() answers each job in the documented shape, or throws INVALID_PAYLOAD / INVALID_JSON', () => {
    const admission = createJobAdmission({
      chain: [{ level: 'instance', policies: [{ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'tags' }, spec: { validate: [{ name: 'each', forEach: { var: 'tags' }, rule: { glob: ['team-*', { var: 'element' }] }, message: 'tag {{element}}' }], mutate: [{ name: 'add', patch: [{ op: 'add', path: '/tags/-', value: 'checked' }] }] } }] }],
    });
    const shape = (r: unknown) => {
      expect(Object.keys(r as object).every((k) => ['id', 'admission', 'reason', 'tags', 'runners'].includes(k))).toBe(true);
      expect(r).toMatchObject({ admission: expect.stringMatching(/^(accepted|rejected)$/), reason: expect.any(String) });
      const id = (r as { id: unknown }).id;
      expect(id === null || typeof id === 'string' || typeof id === 'number').toBe(true);
    };
    check(fc.property(fc.oneof({ weight: 4, arbitrary: payload }, { weight: 1, arbitrary: payload.map((p) => JSON.stringify(p)) }, { weight: 1, arbitrary: fc.string({ maxLength: 30 }) }), (request) => {
      let answer: unknown;
      try {
        answer = admission.admit(request as JobPayload);
      } catch (error) {
        expect(error).toBeInstanceOf(JobAdmissionError);
        expect((error as JobAdmissionError).code).toMatch(/^(INVALID_PAYLOAD|INVALID_JSON)$/);
        return;
      }
      if (Array.isArray(answer)) answer.forEach(shape);
      else shape(answer);
    }), 400);
  }, TIMEOUT);
});
