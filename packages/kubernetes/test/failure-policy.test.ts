import { describe, expect, it } from 'vitest';
import { AdmissionError, admissionReviewFor, createAdmissionWebhook, FAILED_OPEN_ANNOTATION, type AdmissionReviewResponse, type AdmissionWebhookOptions } from '@verdict/kubernetes';
import { checked, pod, verify, webhookFor } from './helpers.js';

function policy(name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name }, spec };
}

const pods = { kinds: [{ apiGroups: [''], kinds: ['Pod'] }] };
/** A rule that throws while evaluating: forEach over an object instead of a list. */
const broken = (name: string, enforcementAction = 'deny') =>
  policy(name, { match: pods, enforcementAction, validate: [{ name: 'each', forEach: { var: 'object.metadata' }, rule: true, message: 'x' }] });
const denyAll = policy('deny-all', { match: pods, validate: [{ name: 'no', rule: false, message: 'pods are not allowed here' }] });
const byNamespace = policy('by-namespace', { match: { ...pods, namespaceSelector: { matchLabels: { team: 'a' } } }, validate: [{ name: 'no', rule: false, message: 'team a pods are not allowed' }] });
const withoutSelector = policy('any-namespace', { match: pods, validate: [{ name: 'name', rule: { '!=': [{ var: 'name' }, 'forbidden'] }, message: 'that name is taken' }] });

function setup(options: Omit<AdmissionWebhookOptions, 'policies'> & { policies: unknown[] }) {
  return webhookFor(options as AdmissionWebhookOptions);
}

describe('a rule that throws', () => {
  it('denies with code 500 under failurePolicy Fail (the default)', async () => {
    const { response } = await setup({ policies: [broken('broken')] }).run(pod({ namespace: 'default' }));
    expect(response.allowed).toBe(false);
    expect(response.status).toEqual({
      status: 'Failure', code: 500, reason: 'InternalError',
      message: 'policy evaluation failed: [broken] rule "each" failed: forEach must give a list (got object)',
    });
  });

  it('admits under failurePolicy Ignore, recording the error in the failed-open audit annotation', async () => {
    const { response } = await setup({ policies: [broken('broken')], failurePolicy: 'Ignore' }).run(pod({ namespace: 'default' }));
    expect(response).toEqual({ uid: response.uid, allowed: true, auditAnnotations: { [FAILED_OPEN_ANNOTATION]: '[broken] rule "each" failed: forEach must give a list (got object)' } });
  });

  it('still denies real violations under Ignore, and adds the errors to them under Fail', async () => {
    const ignore = await setup({ policies: [broken('broken'), denyAll], failurePolicy: 'Ignore' }).run(pod({ namespace: 'default' }));
    expect(ignore.response.status).toMatchObject({ code: 403, message: '[deny-all] pods are not allowed here' });
    const fail = await setup({ policies: [broken('broken'), denyAll] }).run(pod({ namespace: 'default' }));
    expect(fail.response.status).toMatchObject({ code: 403, message: '[deny-all] pods are not allowed here\n[broken] rule "each" failed: forEach must give a list (got object)' });
  });

  it('only warns for a warn-enforced policy and only records an audit-enforced one, whatever the failurePolicy', async () => {
    const { response } = await setup({ policies: [broken('soft', 'warn'), broken('quiet', 'audit')] }).run(pod({ namespace: 'default' }));
    expect(response.allowed).toBe(true);
    expect(response.warnings).toEqual(['[soft] rule "each" failed: forEach must give a list (got object)']);
    expect(response.auditAnnotations).toEqual({ quiet: 'evaluation error: rule "each" failed: forEach must give a list (got object)' });
  });

  it('treats a mutation that cannot be applied like a failing rule, in a mutating webhook', async () => {
    const badPatch = policy('bad-patch', { match: pods, mutate: [{ name: 'replace-missing', patch: [{ op: 'replace', path: '/spec/missing', value: 1 }] }] });
    const addLabel = policy('add-label', { match: pods, mutate: [{ name: 'label', patch: [{ op: 'add', path: '/metadata/labels', value: { team: 'a' } }] }] });
    const fail = await setup({ policies: [badPatch, addLabel], mutating: true }).run(pod({ namespace: 'default' }));
    expect(fail.response.status?.message).toMatch(/^policy evaluation failed: \[bad-patch\] mutate rule "replace-missing" was not applied/);
    const ignore = await setup({ policies: [badPatch, addLabel], mutating: true, failurePolicy: 'Ignore' }).run(pod({ namespace: 'default' }));
    expect(ignore.response.allowed).toBe(true);
    expect(ignore.patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { team: 'a' } }]);
    expect(ignore.response.auditAnnotations?.[FAILED_OPEN_ANNOTATION]).toMatch(/^\[bad-patch\] mutate rule "replace-missing" was not applied/);
  });
});

describe('namespace lookups', () => {
  const never = () => new Promise<Record<string, string>>(() => undefined);

  it('answers synchronously with a sync lookup and with a promise for an async one', async () => {
    const sync = createAdmissionWebhook({ policies: [byNamespace], namespaceLabels: () => ({ team: 'b' }) });
    const first = admissionReviewFor(pod({ namespace: 'x' }));
    const answer = sync.review(first);
    expect(answer).not.toBeInstanceOf(Promise);
    verify(first, answer as AdmissionReviewResponse, false);
    const async = createAdmissionWebhook({ policies: [byNamespace], namespaceLabels: async () => ({ team: 'a' }) });
    const second = admissionReviewFor(pod({ namespace: 'x' }));
    const pending = async.review(second);
    expect(pending).toBeInstanceOf(Promise);
    expect(verify(second, await pending, false).response.status?.message).toBe('[by-namespace] team a pods are not allowed');
  });

  it('fails a lookup that times out: denied with 500 under Fail, admitted under Ignore', async () => {
    const fail = await setup({ policies: [withoutSelector], namespaceLabels: never, namespaceLabelsTimeoutMs: 20 }).run(pod({ namespace: 'slow' }));
    expect(fail.response.status).toEqual({
      status: 'Failure', code: 500, reason: 'InternalError',
      message: 'policy evaluation failed: the namespaceLabels lookup for namespace "slow" timed out after 20 ms',
    });
    const ignore = await setup({ policies: [withoutSelector], namespaceLabels: never, namespaceLabelsTimeoutMs: 20, failurePolicy: 'Ignore' }).run(pod({ namespace: 'slow' }));
    expect(ignore.response).toMatchObject({ allowed: true, auditAnnotations: { [FAILED_OPEN_ANNOTATION]: 'the namespaceLabels lookup for namespace "slow" timed out after 20 ms' } });
  });

  it('fails a lookup that throws, rejects or returns something other than labels', async () => {
    const throws = await setup({ policies: [withoutSelector], namespaceLabels: () => { throw new Error('apiserver unreachable'); } }).run(pod({ namespace: 'x' }));
    expect(throws.response.status?.message).toBe('policy evaluation failed: the namespaceLabels lookup failed for namespace "x": apiserver unreachable');
    const rejects = await setup({ policies: [withoutSelector], namespaceLabels: () => Promise.reject(new Error('403 from apiserver')) }).run(pod({ namespace: 'x' }));
    expect(rejects.response.status?.message).toBe('policy evaluation failed: the namespaceLabels lookup failed for namespace "x": 403 from apiserver');
    const garbage = await setup({ policies: [withoutSelector], namespaceLabels: (() => 42) as never }).run(pod({ namespace: 'x' }));
    expect(garbage.response.status?.message).toMatch(/returned a number for namespace "x"; expected a map of labels/);
  });

  it('denies a namespaceSelector constraint for an unknown namespace even under Ignore (Gatekeeper autoreject), and evaluates the others', async () => {
    const { response } = await setup({ policies: [byNamespace, withoutSelector], namespaceLabels: () => undefined, failurePolicy: 'Ignore' }).run(pod({ name: 'forbidden', namespace: 'ghost' }));
    expect(response.status?.code).toBe(403);
    expect(response.status?.message).toBe(
      '[any-namespace] that name is taken\n[by-namespace] unable to match: namespaceSelector needs the labels of namespace "ghost", but the namespace lookup does not know it (give createAdmissionWebhook a namespaceLabels lookup, or feed its NamespaceCache)',
    );
  });

  it('does not look up namespaces for cluster-scoped objects or Namespaces', async () => {
    const asked: string[] = [];
    const { run } = setup({ policies: [withoutSelector], namespaceLabels: (name) => (asked.push(name), {}) });
    await run({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n1' } });
    await run({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' } });
    await run(pod({ namespace: 'n2' }));
    expect(asked).toEqual(['n2']);
  });
});

describe('options', () => {
  it.each([
    [{ failurePolicy: 'ignore' }, 'failurePolicy must be "Fail" or "Ignore" (got "ignore"); did you mean "Ignore"?'],
    [{ mutating: 'yes' }, 'mutating must be a boolean (got string)'],
    [{ namespaceLabelsTimeoutMs: 0 }, 'namespaceLabelsTimeoutMs must be a positive number (got 0)'],
    [{ maxBodyBytes: -1 }, 'maxBodyBytes must be a positive number (got -1)'],
    [{ namespaceLabels: { team: 'a' } }, 'namespaceLabels must be a function (name) => labels | undefined (sync or async), or a NamespaceCache'],
  ])('refuses %j', (options, message) => {
    expect(() => createAdmissionWebhook({ policies: [denyAll], ...options } as never)).toThrow(new AdmissionError('INVALID_OPTIONS', message));
  });

  it('reports every review to onDecision, and ignores a failing onDecision', async () => {
    const seen: string[] = [];
    const webhook = createAdmissionWebhook({
      policies: [denyAll],
      onDecision: ({ input, decision, response }) => {
        seen.push(`${input?.name} ${decision?.allowed} ${response.response.allowed}`);
        throw new Error('logger down');
      },
    });
    const { response } = await checked(webhook, admissionReviewFor(pod({ name: 'p1', namespace: 'default' })));
    expect(response.allowed).toBe(false);
    expect(seen).toEqual(['p1 false false']);
  });

  it('tells onDecision how long the review took, namespace lookup included', async () => {
    const durations: number[] = [];
    const webhook = createAdmissionWebhook({
      policies: [denyAll],
      namespaceLabels: () => new Promise((resolve) => setTimeout(() => resolve({}), 30)),
      onDecision: ({ durationMs }) => durations.push(durationMs),
    });
    await webhook.review(admissionReviewFor(pod({ name: 'p1', namespace: 'default' })));
    expect(durations).toHaveLength(1);
    expect(durations[0]).toBeGreaterThanOrEqual(25);
  });
});
