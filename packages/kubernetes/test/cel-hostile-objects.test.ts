/**
 * Plausible ValidatingAdmissionPolicies against hostile objects (wide maps, long lists and strings, deep
 * nesting, large annotations): each is answered with the true decision or a cost-limit denial, and an
 * evaluation error follows the policy's failurePolicy as in the API server (Fail denies, Ignore admits);
 * the evaluation budget running out is the webhook's failure (the webhook's failurePolicy).
 */
import { admissionReviewFor, FAILED_OPEN_ANNOTATION, type AdmissionWebhookOptions, type KubernetesObject } from '@verdict/kubernetes';
import { describe, expect, it } from 'vitest';
import { checked, webhookFor } from './helpers.js';

const API = 'admissionregistration.k8s.io/v1';
const PODS = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] }] };

function setup(expression: string, options: { failurePolicy?: 'Fail' | 'Ignore'; variables?: { name: string; expression: string }[]; webhook?: Partial<AdmissionWebhookOptions> } = {}) {
  const policy = { apiVersion: API, kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p' }, spec: { failurePolicy: options.failurePolicy ?? 'Fail', matchConstraints: PODS, ...(options.variables ? { variables: options.variables } : {}), validations: [{ expression }] } };
  const binding = { apiVersion: API, kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'b' }, spec: { policyName: 'p', validationActions: ['Deny'] } };
  return webhookFor({ policies: [policy, binding], ...options.webhook } as AdmissionWebhookOptions);
}

const pod = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubernetesObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', namespace: 'default', ...metadata }, spec });
const containers = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: `registry.example.com/app${i}` }));
const labels = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${i}`, `v${i}`]));
function nested(depth: number, leaf: unknown = 1): Record<string, unknown> {
  let o: Record<string, unknown> = { leaf };
  for (let i = 0; i < depth; i++) o = { x: o };
  return o;
}
const CANCELLED = "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression";
const update = (object: KubernetesObject, oldObject: KubernetesObject) => ({ operation: 'UPDATE' as const, oldObject });

describe('a map `in` inside a loop over a wide object', () => {
  it('is a hash lookup: 4,000 containers and 10,001 labels get the true answer', async () => {
    const { run } = setup("object.spec.containers.all(c, 'team' in object.metadata.labels)");
    const denied = await run(pod({ containers: containers(4_000) }, { labels: labels(10_001) }));
    expect(denied.response.status?.message).toBe("ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: object.spec.containers.all(c, 'team' in object.metadata.labels)");
    const allowed = await run(pod({ containers: containers(4_000) }, { labels: { ...labels(10_000), team: 'a' } }));
    expect(allowed.response.allowed).toBe(true);
  });
});

describe('comparing large objects inside a loop', () => {
  const expression = 'object.spec.containers.all(c, object.spec == oldObject.spec)';

  it('gives the true answer while the work fits the budget', async () => {
    const object = pod({ containers: containers(100) });
    const { webhook } = setup(expression);
    const { response } = await checked(webhook, admissionReviewFor(object, update(object, pod({ containers: containers(100) }))));
    expect(response.allowed).toBe(true);
  });

  it("is stopped by verdict's budget, which the API server's units do not reach: the webhook's failure", async () => {
    // cel-go charges `==` ⌈min(size) ⁄ 10⌉: 8 units per container here, 64,000 in all, far below the API server's limit,
    // for 8,000 comparisons of two specs of 8,000 containers each. verdict's walk of both is its own work, counted
    // against its budget (docs/security.md): it ends there rather than do the quadratic work.
    const object = pod({ containers: containers(8_000) });
    const review = admissionReviewFor(object, update(object, pod({ containers: containers(8_000) })));
    const { response } = await checked(setup(expression).webhook, review);
    expect(response.allowed).toBe(false);
    expect(response.status).toMatchObject({ code: 500 });
    expect(response.status?.message).toMatch(/exceeded the cost budget of 10000000 units/);
  });
});

describe('a quadratic loop', () => {
  const expression = 'object.spec.containers.all(c, object.spec.containers.exists(d, d.name == c.name))';

  it("is cancelled past the API server's per-expression limit: Fail denies, Ignore admits", async () => {
    // cel-go's units: per outer container 3, per inner one scanned 6 (its loop condition 3, `__result__` 1, `d.name == c.name`
    // 2 + 2 + 1, less the 3 the condition of an element after a hit does not need): millions over 8,000 containers.
    const review = admissionReviewFor(pod({ containers: containers(8_000) }));
    const fail = await checked(setup(expression).webhook, review);
    expect(fail.response.allowed).toBe(false);
    expect(fail.response.status).toMatchObject({ code: 422, message: `${CANCELLED} '${expression}' resulted in error: operation cancelled: actual cost limit exceeded` });
    const ignore = await checked(setup(expression, { failurePolicy: 'Ignore' }).webhook, review);
    expect(ignore.response.allowed).toBe(true);
  });
});

describe("a variable's cost", () => {
  // `names` costs the API server 14 units per container (`__result__ + [c.name]`: 12, `c.name`: 2), the validation 5 per
  // name (its loop condition 2, `__result__` 1, `n` 1, `startsWith` 1): 840,000 and 300,000 over 60,000 containers.
  const variables = [{ name: 'names', expression: 'object.spec.containers.map(c, c.name)' }];
  const expression = "variables.names.all(n, n.startsWith('c'))";

  it("counts against the policy, not against the expression that reads it: each within its own limit, admitted", async () => {
    const { response } = await setup(expression, { variables }).run(pod({ containers: containers(60_000) }));
    expect(response.allowed).toBe(true);
  });

  it('is cancelled past its own limit, as an error of the expression that reads it', async () => {
    const { response } = await setup(expression, { variables }).run(pod({ containers: containers(80_000) }));
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toMatch(/resulted in error: variables\.names: operation cancelled: actual cost limit exceeded$/);
  });
});

describe('strings and lists doubled through variables', () => {
  const chain = (start: string) => [{ name: 'v0', expression: start }, ...Array.from({ length: 9 }, (_, i) => ({ name: `v${i + 1}`, expression: `variables.v${i} + variables.v${i}` }))];

  it('stop at the expression limit instead of building a 512 MB string from a 1 MB annotation', async () => {
    const object = pod({ containers: containers(1) }, { annotations: { a: 'a'.repeat(1_000_000) } });
    const fail = await setup('size(variables.v9) > 0', { variables: chain("object.metadata.annotations['a']") }).run(object);
    expect(fail.response.allowed).toBe(false);
    expect(fail.response.status?.message).toMatch(/resulted in error: .*operation cancelled: actual cost limit exceeded$/);
    const ignore = await setup('size(variables.v9) > 0', { variables: chain("object.metadata.annotations['a']"), failurePolicy: 'Ignore' }).run(object);
    expect(ignore.response.allowed).toBe(true);
  });

  it("stop at verdict's budget over 20,000 containers (cel-go's list `+` is a view, one unit: the API server's units stay low)", async () => {
    const { response } = await setup('size(variables.v9) > 0', { variables: chain('object.spec.containers') }).run(pod({ containers: containers(20_000) }));
    expect(response.allowed).toBe(false);
    expect(response.status).toMatchObject({ code: 500 });
    expect(response.status?.message).toMatch(/exceeded the cost budget of 10000000 units/);
  });
});

describe('objects nested as deep as the API server accepts (10,000 levels)', () => {
  // Reviewed directly: the helpers' checks (JSON.stringify of the review) would overflow on such objects themselves.
  it('compare with the true answer: equal objects are admitted, a different leaf is denied', async () => {
    const object = pod({ x: nested(10_000) });
    const { webhook } = setup('object == oldObject');
    expect((await webhook.review(admissionReviewFor(object, update(object, pod({ x: nested(10_000) }))))).response.allowed).toBe(true);
    expect((await webhook.review(admissionReviewFor(object, update(object, pod({ x: nested(10_000, 2) }))))).response.status?.code).toBe(422);
  });

  it('are denied under failurePolicy Ignore when the policy says so (a stack overflow admitted them)', async () => {
    const { webhook } = setup('!(has(object.spec.x) && object.spec.x != null)', { failurePolicy: 'Ignore' });
    const { response } = await webhook.review(admissionReviewFor(pod({ x: nested(10_000) })));
    expect(response.allowed).toBe(false);
    expect(response.status?.code).toBe(422);
  });

  it('are refused before parsing when a body nests deeper than 10,000 levels', async () => {
    const { webhook } = setup('true');
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const body = JSON.stringify(admissionReviewFor(pod({ containers: [] }))).replace('"containers":[]', `"containers":${deep}`);
    const answer = await webhook.handle(new Request('https://verdict.local/', { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
    expect(answer.status).toBe(400);
    expect(await answer.text()).toMatch(/more than 10000 levels deep/);
  });
});

describe('the evaluation budget running out', () => {
  const expression = 'object.spec.containers.all(c, object.spec.containers.all(d, c.name != d.image))';
  const object = pod({ containers: containers(300) });

  it('is the webhook\'s failure: denied with 500 under failurePolicy Fail', async () => {
    const { response } = await setup(expression, { webhook: { limits: { costBudget: 10_000 } } }).run(object);
    expect(response.allowed).toBe(false);
    expect(response.status).toMatchObject({ code: 500, reason: 'InternalError' });
    expect(response.status?.message).toMatch(/exceeded the cost budget of 10000 units/);
  });

  it('is admitted with the failed-open audit annotation under the webhook\'s failurePolicy Ignore', async () => {
    const { response } = await setup(expression, { webhook: { limits: { costBudget: 10_000 }, failurePolicy: 'Ignore' } }).run(object);
    expect(response.allowed).toBe(true);
    expect(response.auditAnnotations?.[FAILED_OPEN_ANNOTATION]).toMatch(/exceeded the cost budget of 10000 units/);
  });
});
