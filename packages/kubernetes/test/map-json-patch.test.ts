import { describe, expect, it } from 'vitest';
import type { Decision } from '@verdict/core';
import { admissionReviewFor, loadKubernetesPolicies, toAdmissionInput } from '@verdict/kubernetes';
import { pod, webhookFor } from './helpers.js';
import { bound, mutating, mutatingBinding } from './map-helpers.js';
import { configMap } from './vap-helpers.js';
import { JSONPATCH_FUNCTIONS } from '../src/map/library.js';
import { codePoints } from '../src/read.js';

function setup(policies: unknown[]) {
  return webhookFor({ policies: policies as never, mutating: true, namespaceLabels: () => ({}) });
}

const labelsOf = (patched: unknown) => (patched as { metadata: { labels?: Record<string, string> } }).metadata.labels;

describe('MutatingAdmissionPolicy with JSONPatch mutations', () => {
  it('applies add, replace, remove, copy and move as RFC 6902 says', async () => {
    const { run } = setup(bound('ops.example.com', [`[
      JSONPatch{op: "add", path: "/metadata/labels", value: {"a": "1", "b": "2"}},
      JSONPatch{op: "replace", path: "/metadata/labels/a", value: "one"},
      JSONPatch{op: "copy", from: "/metadata/labels/a", path: "/metadata/labels/c"},
      JSONPatch{op: "move", from: "/metadata/labels/b", path: "/metadata/labels/d"},
      JSONPatch{op: "remove", path: "/metadata/labels/c"}
    ]`]));
    const { response, patched } = await run(pod({ name: 'p' }));
    expect(response.allowed).toBe(true);
    expect(labelsOf(patched)).toEqual({ a: 'one', d: '2' });
  });

  it('escapes a key for a path with jsonpatch.escapeKey', async () => {
    const { run } = setup(bound('escape.example.com', [
      '[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/owner~team"), value: "platform"}]',
    ]));
    const { patch, patched } = await run(pod({ name: 'p', labels: { app: 'web' } }));
    expect(patch).toEqual([{ op: 'add', path: '/metadata/labels/example.com~1owner~0team', value: 'platform' }]);
    expect(labelsOf(patched)).toEqual({ app: 'web', 'example.com/owner~team': 'platform' });
  });

  it('does not apply a mutation whose test operation fails, and admits the object unchanged (as the API server)', () => {
    const set = loadKubernetesPolicies(bound('guarded.example.com', ['[JSONPatch{op: "test", path: "/spec/containers/0/name", value: "not-this-one"}, JSONPatch{op: "add", path: "/metadata/labels", value: {"tested": "yes"}}]']));
    const decision = set.evaluate(toAdmissionInput(admissionReviewFor(pod({ name: 'p' }))));
    expect(decision).toMatchObject({ allowed: true, patch: [], errors: [] });
    expect(decision.trace[0]!.rules[0]).toMatchObject({ rule: 'mutations[0]', result: 'skipped', message: 'not applied: testing value /spec/containers/0/name failed: test failed' });
  });

  it('applies a mutation whose test operation holds, test included in the patch', async () => {
    const { run } = setup(bound('guarded.example.com', ['[JSONPatch{op: "test", path: "/spec/containers/0/name", value: "app"}, JSONPatch{op: "add", path: "/metadata/labels", value: {"tested": "yes"}}]']));
    const { patch, patched } = await run(pod({ name: 'p' }));
    expect(patch).toEqual([{ op: 'test', path: '/spec/containers/0/name', value: 'app' }, { op: 'add', path: '/metadata/labels', value: { tested: 'yes' } }]);
    expect(labelsOf(patched)).toEqual({ tested: 'yes' });
  });

  it('denies under failurePolicy Fail when an operation fails, and never half-applies the mutation', async () => {
    const { run } = setup(bound('broken.example.com', ['[JSONPatch{op: "add", path: "/metadata/labels/a", value: "x"}, JSONPatch{op: "remove", path: "/spec/nothing"}]']));
    const { response } = await run(pod({ name: 'p', labels: {} }));
    expect(response).toMatchObject({ allowed: false, status: { code: 403, reason: 'Invalid' } });
    expect(response.status?.message).toBe("policy 'broken.example.com' with binding 'broken.example.com' denied request: JSON Patch: error in remove for path: '/spec/nothing': Unable to remove nonexistent key: nothing: missing value");
    expect(response.patch).toBeUndefined();
  });

  it('skips a failing mutation under failurePolicy Ignore and keeps the others', async () => {
    const { run } = setup([
      ...bound('a-broken.example.com', ['[JSONPatch{op: "add", path: "/metadata/labels/a", value: "x"}, JSONPatch{op: "add", path: "/no/parent", value: 1}]'], { failurePolicy: 'Ignore' }),
      ...bound('b-works.example.com', ['[JSONPatch{op: "add", path: "/metadata/labels/b", value: "y"}]']),
    ]);
    const { response, patched } = await run(pod({ name: 'p', labels: {} }));
    expect(response.allowed).toBe(true);
    expect(labelsOf(patched)).toEqual({ b: 'y' });
  });

  it('says what is wrong with a value that is not a list of operations', () => {
    const set = loadKubernetesPolicies(bound('shape.example.com', ['[{"op": "jump", "path": "/a"}]', 'JSONPatch{op: "add", path: "/a", value: 1}']));
    const { errors } = set.evaluate(toAdmissionInput(admissionReviewFor(pod({ name: 'p' }))));
    expect(errors.map((e) => e.message)).toEqual([
      'mutate rule "mutations[0]" was not applied: JSON Patch: Unexpected kind: jump',
      'mutate rule "mutations[1]" was not applied: type mismatch: JSONPatchType.expression should evaluate to array',
    ]);
  });

  it('applies mutations in order: each sees the object as the previous ones left it', async () => {
    const { run } = setup(bound('order.example.com', [
      '[JSONPatch{op: "add", path: "/metadata/labels", value: {"step": "1"}}]',
      '[JSONPatch{op: "replace", path: "/metadata/labels/step", value: string(int(object.metadata.labels.step) + 1)}]',
    ]));
    expect(labelsOf((await run(pod({ name: 'p' }))).patched)).toEqual({ step: '2' });
  });

  it('reads variables, request and the binding parameters (paramRef)', async () => {
    const policy = mutating('owner.example.com', ['[JSONPatch{op: "add", path: "/metadata/labels", value: {"owner": params.data.owner, "by": variables.user}}]'], {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      variables: [{ name: 'user', expression: 'request.userInfo.username.replace(":", "-")' }],
    });
    const binding = mutatingBinding('owner.example.com', 'owner.example.com', { paramRef: { name: 'owners', namespace: 'config', parameterNotFoundAction: 'Deny' } });
    const { run } = setup([policy, binding, configMap('owners', { owner: 'team-a' }, { namespace: 'config' })]);
    expect(labelsOf((await run(pod({ name: 'p' }))).patched)).toEqual({ owner: 'team-a', by: 'kubernetes-admin' });
  });

  it('denies when the parameters are missing and parameterNotFoundAction is Deny', async () => {
    const policy = mutating('owner.example.com', ['[JSONPatch{op: "add", path: "/metadata/labels", value: {"owner": params.data.owner}}]'], { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } });
    const { run } = setup([policy, mutatingBinding('owner.example.com', 'owner.example.com', { paramRef: { name: 'owners', namespace: 'config', parameterNotFoundAction: 'Deny' } })]);
    const { response } = await run(pod({ name: 'p' }));
    expect(response.status).toMatchObject({ code: 403, reason: 'Forbidden', message: "policy 'owner.example.com' with binding 'owner.example.com' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction" });
  });

  it('reinvokes an IfNeeded policy once when a later policy changed the object', async () => {
    const copyTeam = (reinvocationPolicy: string) => mutating('a-copy.example.com', [
      'has(object.metadata.labels) && "team" in object.metadata.labels ? [JSONPatch{op: "add", path: "/metadata/annotations", value: {"team": object.metadata.labels.team}}] : []',
    ], { reinvocationPolicy });
    const setTeam = bound('b-team.example.com', ['[JSONPatch{op: "add", path: "/metadata/labels", value: {"team": "blue"}}]']);
    const annotations = async (policy: string) => {
      const { patched } = await setup([copyTeam(policy), mutatingBinding('a-copy.example.com', 'a-copy.example.com'), ...setTeam]).run(pod({ name: 'p' }));
      return (patched as { metadata: { annotations?: unknown } }).metadata.annotations;
    };
    expect(await annotations('IfNeeded')).toEqual({ team: 'blue' });
    expect(await annotations('Never')).toBeUndefined();
  });

  it('evaluates matchConditions on the object as earlier policies left it', () => {
    const once = mutating('b-once.example.com', ['[JSONPatch{op: "add", path: "/metadata/labels/count", value: "x"}]'], {
      matchConditions: [{ name: 'not-yet', expression: '!("count" in object.metadata.labels)' }],
    });
    const set = loadKubernetesPolicies([...bound('a-first.example.com', ['[JSONPatch{op: "add", path: "/metadata/labels/count", value: "1"}]']), once, mutatingBinding('b-once.example.com', 'b-once.example.com')]);
    const decision = set.evaluate(toAdmissionInput(admissionReviewFor(pod({ name: 'p', labels: {} }))));
    expect(decision.patch).toEqual([{ op: 'add', path: '/metadata/labels/count', value: '1' }]);
    expect(decision.trace[1]).toMatchObject({ matched: false, mismatch: { at: '/spec/matchConditions/0' }, rules: [] });
  });

  it('traces each mutation with the operations it applied', () => {
    const set = loadKubernetesPolicies(bound('trace.example.com', ['[JSONPatch{op: "add", path: "/metadata/labels", value: {"a": "b"}}]']));
    const decision = set.evaluate(toAdmissionInput(admissionReviewFor(pod({ name: 'p' }))));
    expect(decision.trace[0]).toMatchObject({
      policy: 'trace.example.com', kind: 'MutatingAdmissionPolicyBinding', matched: true,
      rules: [{ rule: 'mutations[0]', type: 'mutate', result: 'pass' }],
      patch: [{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }],
    });
  });
});

describe('MutatingAdmissionPolicy JSONPatch leniencies of the API server (evanphx/json-patch v4)', () => {
  const apply = (expression: string, object: Record<string, unknown>) => {
    const set = loadKubernetesPolicies(bound('lenient.example.com', [expression]));
    return set.evaluate(toAdmissionInput(admissionReviewFor(pod({ name: 'p', ...object }))));
  };

  it('adds a missing key with replace, and answers with an add', () => {
    const d = apply('[JSONPatch{op: "replace", path: "/metadata/labels/x", value: "2"}]', { labels: { y: '1' } });
    expect(d.patch).toEqual([{ op: 'add', path: '/metadata/labels/x', value: '2' }]);
    expect(labelsOf(d.mutated)).toEqual({ y: '1', x: '2' });
  });

  it('counts negative array indices from the end and answers with indices from the start', () => {
    const d = apply('[JSONPatch{op: "add", path: "/spec/containers/-1", value: {"name": "last"}}, JSONPatch{op: "replace", path: "/spec/containers/-2/image", value: "nginx:1"}]', {});
    expect(d.patch).toEqual([{ op: 'add', path: '/spec/containers/1', value: { name: 'last' } }, { op: 'replace', path: '/spec/containers/0/image', value: 'nginx:1' }]);
  });

  it('copies null from a missing key, and a test without value holds on a missing key', () => {
    const d = apply('[JSONPatch{op: "test", path: "/metadata/labels/none"}, JSONPatch{op: "copy", from: "/metadata/labels/none", path: "/metadata/labels/copy"}]', { labels: {} });
    expect(d.patch).toEqual([{ op: 'add', path: '/metadata/labels/copy', value: null }]);
  });

  it('keeps as errors what json-patch v4 refuses: a missing parent, replace at "-", a test below a missing path', () => {
    const errorOf = (expression: string) => apply(expression, { labels: {} }).errors.map((e) => e.message);
    expect(errorOf('[JSONPatch{op: "replace", path: "/metadata/annotations/x", value: "1"}]')).toEqual(['mutate rule "mutations[0]" was not applied: JSON Patch: replace operation does not apply: doc is missing path: /metadata/annotations/x: missing value']);
    expect(errorOf('[JSONPatch{op: "replace", path: "/spec/containers/-", value: {}}]')).toEqual(['mutate rule "mutations[0]" was not applied: JSON Patch: replace operation does not apply: doc is missing key: /spec/containers/-: missing value']);
    expect(errorOf('[JSONPatch{op: "test", path: "/metadata/annotations/x", value: "1"}]')).toEqual(['mutate rule "mutations[0]" was not applied: JSON Patch: test operation does not apply: is missing path: /metadata/annotations/x: missing value']);
    expect(errorOf('[JSONPatch{op: "add", path: "/spec/containers/5", value: {}}]')).toEqual(["mutate rule \"mutations[0]\" was not applied: JSON Patch: error in add for path: '/spec/containers/5': Unable to access invalid index: 5: invalid index referenced"]);
  });

  it('reads a path without its leading slash as json-patch v4 does (its first segment dropped), and tests the whole object at ""', () => {
    const d = apply('[JSONPatch{op: "test", path: "", value: object}, JSONPatch{op: "add", path: "x/team", value: "blue"}]', {});
    expect(d.patch).toEqual([{ op: 'test', path: '', value: expect.objectContaining({ kind: 'Pod' }) }, { op: 'add', path: '/team', value: 'blue' }]);
    expect((d.mutated as Record<string, unknown>)['team']).toBe('blue');
  });

  it('leaves the object unchanged when a test does not hold, a missing key tested against a value included', () => {
    const d = apply('[JSONPatch{op: "add", path: "/metadata/labels/a", value: "1"}, JSONPatch{op: "test", path: "/metadata/labels/none", value: "x"}]', { labels: {} });
    expect(d).toMatchObject({ allowed: true, errors: [], patch: [] });
    expect(d.trace[0]!.rules[0]).toMatchObject({ result: 'skipped', message: 'not applied: testing value /metadata/labels/none failed: test failed' });
  });
});

describe('MutatingAdmissionPolicy matchConditions in a mutating webhook', () => {
  it('traces a policy whose matchConditions were false at its turn as not matched, even if the final object matches them', async () => {
    const gated = mutating('a-gated.example.com', ['[JSONPatch{op: "add", path: "/metadata/annotations", value: {"gated": "yes"}}]'], {
      matchConditions: [{ name: 'labelled', expression: 'has(object.metadata.labels) && "team" in object.metadata.labels' }],
    });
    let decision: Decision | undefined;
    const { run } = webhookFor({
      policies: [gated, mutatingBinding('a-gated.example.com', 'a-gated.example.com'), ...bound('b-label.example.com', ['[JSONPatch{op: "add", path: "/metadata/labels", value: {"team": "blue"}}]'])] as never,
      mutating: true, namespaceLabels: () => ({}), onDecision: (event) => { decision = event.decision; },
    });
    const { patch } = await run(pod({ name: 'p' }));
    expect(patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { team: 'blue' } }]);
    expect(decision!.trace.find((t) => t.policy === 'a-gated.example.com')).toMatchObject({ matched: false, mismatch: { at: '/spec/matchConditions/0' }, rules: [] });
  });
});

describe('jsonpatch.escapeKey cost', () => {
  const escapeKey = JSONPATCH_FUNCTIONS.find((f) => f.signature.includes('escapeKey'))!;

  it("charges the API server's units for a traversal of the key: a unit per ten code points, rounded up", () => {
    expect(escapeKey.cost!([undefined, 'a'.repeat(10)], '')).toBe(1);
    expect(escapeKey.cost!([undefined, 'a'.repeat(11)], '')).toBe(2);
    // Ten emoji are twenty UTF-16 units but ten code points, as Go counts them.
    expect(escapeKey.cost!([undefined, '\u{1F600}'.repeat(10)], '')).toBe(1);
  });

  it('counts a surrogate pair as one code point and a lone surrogate as one', () => {
    expect(codePoints('a\u{1F600}b')).toBe(3);
    expect(codePoints('\uD800a\uDC00')).toBe(3);
    expect(codePoints('')).toBe(0);
  });
});
