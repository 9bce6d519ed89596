import { describe, expect, it } from 'vitest';
import type { Decision } from '@verdict/core';
import { admissionReviewFor, toAdmissionResponse, verifyAdmissionResponse } from '@verdict/kubernetes';
import { checked, namespace, pod, webhookFor } from './helpers.js';

/** A Policy (logic and constraint in one) from a few fields. */
function policy(name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name }, spec };
}

const podsOnly = { kinds: [{ apiGroups: [''], kinds: ['Pod'] }] };
const needsTeam = (name: string, enforcementAction = 'deny') =>
  policy(name, { match: podsOnly, enforcementAction, validate: [{ name: 'team', rule: { '!!': { var: 'labels.team' } }, message: 'pod {{name}} needs a team label' }] });

describe('seed 001 response examples', () => {
  const tuesday = policy('tuesday', {
    match: { rules: [{ operations: ['UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments/scale'] }] },
    validate: [{ name: 'not-a', rule: { '!': { starts_with: [{ var: 'userInfo.username' }, 'A'] } }, message: 'You cannot do this because it is Tuesday and your name starts with A' }],
  });
  const scale = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'my-deployment', namespace: 'my-namespace' }, spec: { replicas: 3 } };
  const options = (username: string) => ({
    oldObject: { ...scale, spec: { replicas: 1 } }, subResource: 'scale', resource: { group: 'apps', version: 'v1', resource: 'deployments' }, uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
    userInfo: { username, uid: '014fbff9a07c', groups: ['system:authenticated', 'my-admin-group'], extra: { 'some-key': ['some-value1', 'some-value2'] } },
  });

  it('answers {"allowed": true} with the uid and nothing else when nothing is violated', async () => {
    const { run } = webhookFor({ policies: [tuesday] });
    const { response } = await run(scale, options('admin'));
    expect(response).toEqual({ uid: '705ab4f5-6393-11e8-b7cc-42010a800002', allowed: true });
  });

  it('answers a denial with code 403 and the policy\'s message in Gatekeeper\'s form', async () => {
    const { run } = webhookFor({ policies: [tuesday] });
    const { response } = await run(scale, options('Alice'));
    expect(response).toEqual({
      uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
      allowed: false,
      status: { status: 'Failure', code: 403, reason: 'Forbidden', message: '[tuesday] You cannot do this because it is Tuesday and your name starts with A' },
    });
  });
});

describe('kinitiras examples', () => {
  /** examples/addanno-op.yaml: add annotation added-by=op to labelled Pods on CREATE. */
  const addAnnotation = policy('add-anno-op-plaintext', {
    match: { kinds: [{ apiGroups: [''], kinds: ['Pod'] }], labelSelector: { matchLabels: { 'kinitiras.kcloudlabs.io/webhook': 'enabled' } } },
    mutate: [{ name: 'added-by', when: { '==': [{ var: 'operation' }, 'CREATE'] }, patch: [{ op: 'add', path: '/metadata/annotations/added-by', value: 'op' }] }],
  });
  /** examples/deletens-cvp.yaml: reject DELETE of a Namespace labelled kinitiras.kcloudlabs.io/webhook=enabled. */
  const deleteNs = policy('test-delete-ns', {
    match: { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'] }] },
    validate: [{ name: 'reject', rule: { '!=': [{ get: [{ var: 'labels' }, 'kinitiras.kcloudlabs.io/webhook'] }, 'enabled'] }, message: 'operation rejected' }],
  });
  const enabled = { 'kinitiras.kcloudlabs.io/webhook': 'enabled' };

  it('adds the annotation on CREATE with a patch that applies to the original object', async () => {
    const { run } = webhookFor({ policies: [addAnnotation], mutating: true });
    const created = await run(pod({ namespace: 'default', labels: enabled }));
    expect(created.response).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
    expect(created.patch).toEqual([{ op: 'add', path: '/metadata/annotations', value: {} }, { op: 'add', path: '/metadata/annotations/added-by', value: 'op' }]);
    expect((created.patched as { metadata: { annotations: unknown } }).metadata.annotations).toEqual({ 'added-by': 'op' });
    const updated = await run(pod({ name: 'p', namespace: 'default', labels: enabled }), { oldObject: pod({ name: 'p', namespace: 'default', labels: enabled }) });
    expect(updated.response.patch).toBeUndefined();
    expect((await run(pod({ namespace: 'default' }))).response.patch).toBeUndefined();
  });

  it('rejects DELETE of a labelled Namespace and lets others go', async () => {
    const { run } = webhookFor({ policies: [deleteNs] });
    expect((await run(namespace('team-a', enabled), { operation: 'DELETE' })).response.status?.message).toBe('[test-delete-ns] operation rejected');
    expect((await run(namespace('team-b'), { operation: 'DELETE' })).response.allowed).toBe(true);
    expect((await run(namespace('team-a', enabled))).response.allowed).toBe(true);
  });

  it('denies DELETE of a protected namespace unless it is annotated (rules over operation, labels and annotations)', async () => {
    const protect = policy('protect-namespaces', {
      match: { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'] }] },
      validate: [{
        name: 'annotated',
        rule: { or: [{ '!=': [{ get: [{ var: 'labels' }, 'protected'] }, 'true'] }, { '==': [{ get: [{ var: 'annotations' }, 'verdict.dev/allow-delete'] }, 'true'] }] },
        message: 'namespace {{name}} is protected; annotate it verdict.dev/allow-delete=true to delete it',
      }],
    });
    const { run } = webhookFor({ policies: [protect] });
    expect((await run(namespace('prod', { protected: 'true' }), { operation: 'DELETE' })).response.status?.message).toBe(
      '[protect-namespaces] namespace prod is protected; annotate it verdict.dev/allow-delete=true to delete it',
    );
    expect((await run(namespace('prod', { protected: 'true' }, { 'verdict.dev/allow-delete': 'true' }), { operation: 'DELETE' })).response.allowed).toBe(true);
  });
});

describe('enforcement actions', () => {
  it('joins several denials, one "[policy] message" line each', async () => {
    const { run } = webhookFor({ policies: [needsTeam('a-team'), needsTeam('b-team')] });
    const { response } = await run(pod({ name: 'web', namespace: 'default' }));
    expect(response.status?.message).toBe('[a-team] pod web needs a team label\n[b-team] pod web needs a team label');
  });

  it('turns warn-enforced violations into warnings, also alongside a denial', async () => {
    const { run } = webhookFor({ policies: [needsTeam('soft', 'warn')] });
    expect((await run(pod({ name: 'web', namespace: 'default' }))).response).toMatchObject({ allowed: true, warnings: ['[soft] pod web needs a team label'] });
    const both = webhookFor({ policies: [needsTeam('soft', 'warn'), needsTeam('hard')] });
    expect((await both.run(pod({ name: 'web', namespace: 'default' }))).response).toMatchObject({ allowed: false, warnings: ['[soft] pod web needs a team label'] });
  });

  it('records audit- and dryrun-enforced violations as audit annotations keyed by policy, without affecting the answer', async () => {
    const { run } = webhookFor({ policies: [needsTeam('audited', 'audit'), needsTeam('trial', 'dryrun')] });
    const { response } = await run(pod({ name: 'web', namespace: 'default' }));
    expect(response).toEqual({ uid: response.uid, allowed: true, auditAnnotations: { audited: 'pod web needs a team label', trial: 'pod web needs a team label' } });
  });

  it('makes policy names that are not valid annotation keys into valid, distinct keys', async () => {
    const long = `audit-${'x'.repeat(80)}`;
    const { run } = webhookFor({ policies: [needsTeam(long, 'audit'), needsTeam('Weird.Name_', 'audit')] });
    const keys = Object.keys((await run(pod({ namespace: 'default' }))).response.auditAnnotations!);
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(key).toMatch(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/);
  });
});

describe('warnings the apiserver keeps', () => {
  it('removes control characters and duplicates, and truncates long warnings to 256 characters', async () => {
    const noisy = policy('noisy', {
      match: podsOnly, enforcementAction: 'warn',
      validate: [
        { name: 'multi-line', rule: false, message: 'line one\nline two\ttabbed' },
        { name: 'again', rule: false, message: 'line one\nline two\ttabbed' },
        { name: 'long', rule: false, message: 'x'.repeat(400) },
      ],
    });
    const { response } = await webhookFor({ policies: [noisy] }).run(pod({ namespace: 'default' }));
    expect(response.warnings![0]).toBe('[noisy] line one line two tabbed');
    expect(response.warnings).toHaveLength(2);
    expect([...response.warnings![1]!]).toHaveLength(256);
  });

  it('stays within the 4096-character budget and says how many warnings were left out', async () => {
    const validate = Array.from({ length: 40 }, (_, i) => ({ name: `r${i}`, rule: false, message: `${i} ${'y'.repeat(200)}` }));
    const { response } = await webhookFor({ policies: [policy('many', { match: podsOnly, enforcementAction: 'warn', validate })] }).run(pod({ namespace: 'default' }));
    expect(response.warnings!.join('').length).toBeLessThanOrEqual(4096);
    expect(response.warnings!.at(-1)).toMatch(/^… and \d+ more warnings$/);
  });
});

describe('mutations', () => {
  const addTeam = policy('default-team', {
    match: podsOnly,
    mutate: [{ name: 'team', when: { '!': { var: 'labels.team' } }, patch: [{ op: 'add', path: '/metadata/labels/team', value: 'unassigned' }] }],
  });

  it('a mutating webhook returns the patch and validates the mutated object', async () => {
    const { run } = webhookFor({ policies: [addTeam, needsTeam('has-team')], mutating: true });
    const result = await run(pod({ namespace: 'default' }));
    expect(result.response.allowed).toBe(true);
    expect(result.patch).toEqual([{ op: 'add', path: '/metadata/labels', value: {} }, { op: 'add', path: '/metadata/labels/team', value: 'unassigned' }]);
  });

  it('a validating webhook never returns a patch and validates the object as sent', async () => {
    const { run } = webhookFor({ policies: [addTeam, needsTeam('has-team')] });
    const { response } = await run(pod({ name: 'web', namespace: 'default' }));
    expect(response).toMatchObject({ allowed: false, status: { message: '[has-team] pod web needs a team label' } });
    expect(response.patch).toBeUndefined();
    expect(response.patchType).toBeUndefined();
  });

  it('a mutating webhook denies what still violates, without a patch', async () => {
    const strict = policy('no-latest', { match: podsOnly, validate: [{ name: 'tag', rule: false, message: 'no' }] });
    const { response } = await webhookFor({ policies: [addTeam, strict], mutating: true }).run(pod({ namespace: 'default' }));
    expect(response.allowed).toBe(false);
    expect(response.patch).toBeUndefined();
  });

  it('validates the mutated object as a later validating webhook would: fresh labels, selectors matched again, one trace', async () => {
    const unassigned = policy('no-unassigned', {
      match: { ...podsOnly, labelSelector: { matchLabels: { team: 'unassigned' } } },
      validate: [{ name: 'owner', rule: { '!=': [{ var: 'labels.team' }, 'unassigned'] }, message: 'pod {{name}} has no owning team' }],
    });
    const decisions: Decision[] = [];
    const { run } = webhookFor({ policies: [addTeam, unassigned], mutating: true, onDecision: ({ decision }) => decision && decisions.push(decision) });
    const { response } = await run(pod({ name: 'web', namespace: 'default' }));
    expect(response.status?.message).toBe('[no-unassigned] pod web has no owning team');
    const traced = decisions[0]!.trace.find((t) => t.policy === 'default-team')!;
    const made = [{ op: 'add', path: '/metadata/labels', value: {} }, { op: 'add', path: '/metadata/labels/team', value: 'unassigned' }];
    expect(traced.rules).toEqual([{ rule: 'team', type: 'mutate', result: 'pass', patch: made }]);
    expect(traced.patch).toEqual(made);
    expect(decisions[0]!.trace.find((t) => t.policy === 'no-unassigned')).toMatchObject({ matched: true, rules: [{ rule: 'owner', result: 'fail' }] });
  });

  it('never patches a DELETE, which has no object, but still validates it', async () => {
    const { response } = await webhookFor({ policies: [addTeam, needsTeam('has-team')], mutating: true }).run(pod({ namespace: 'default' }), { operation: 'DELETE' });
    expect(response.allowed).toBe(false);
    expect(response.patch).toBeUndefined();
  });
});

describe('toAdmissionResponse', () => {
  const decision = (over: Partial<Decision>): Decision => ({ allowed: true, violations: [], warnings: [], errors: [], patch: [], trace: [], skipped: 0, ...over });

  it('builds a valid response from a decision computed elsewhere', () => {
    const patch = [{ op: 'add' as const, path: '/metadata/labels', value: { a: 'b' } }];
    const review = toAdmissionResponse('u-1', decision({ patch }), { mutating: true });
    expect(verifyAdmissionResponse(review, { uid: 'u-1', mutating: true, object: {} })).toEqual([]);
    expect(JSON.parse(atob(review.response.patch!))).toEqual(patch);
    expect(toAdmissionResponse('u-1', decision({ patch })).response.patch).toBeUndefined();
  });

  it('denies with code 403 for a deny violation', () => {
    const review = toAdmissionResponse('u-2', decision({ allowed: false, violations: [{ policy: 'p', kind: 'K', rule: 'r', message: 'fix it', enforcementAction: 'deny' }] }));
    expect(review.response.status).toEqual({ status: 'Failure', code: 403, reason: 'Forbidden', message: '[p] fix it' });
  });
});

describe('admissionReviewFor in a review', () => {
  it('builds reviews the webhook accepts for every operation', async () => {
    const { webhook } = webhookFor({ policies: [needsTeam('t', 'warn')] });
    for (const operation of ['CREATE', 'UPDATE', 'DELETE'] as const) {
      const review = admissionReviewFor(pod({ name: 'p', namespace: 'default' }), { operation, ...(operation === 'UPDATE' ? { oldObject: pod({ name: 'p', namespace: 'default' }) } : {}) });
      expect((await checked(webhook, review)).response.uid).toBe(review.request.uid);
    }
  });
});
