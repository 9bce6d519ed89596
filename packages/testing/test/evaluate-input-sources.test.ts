/** EvaluateInput names the file of policy text in load problems; Kubernetes answers are validating by default. */
import { describe, expect, it } from 'vitest';
import { PolicyLoadError } from '@verdict/core';
import { checkPatch, evaluateInput } from '@verdict/testing';

describe('source of evaluateInput', () => {
  it('names the file, line and column of a problem', async () => {
    const text = 'apiVersion: verdict.dev/v1\nkind: Policy\nmetadata: {name: p}\nspec:\n  validate: [{name: r, rule: {var: parameters.x}, message: m}]\n  parametersSchema: {type: object, properties: {y: {}}}\n';
    const error = await evaluateInput(text, { a: 1 }, { as: 'core', source: 'p.yaml' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolicyLoadError);
    expect((error as PolicyLoadError).message).toContain('p.yaml:5:36 (Policy/p) at /spec/validate/0/rule/var: reads parameters.x');
  });
});

describe('Kubernetes answers are validating by default, as createAdmissionWebhook', () => {
  const setup = () => ({
    policies: 'apiVersion: verdict.dev/v1\nkind: Policy\nmetadata: {name: owner}\nspec:\n  mutate: [{name: m, patch: [{op: add, path: /metadata/labels/owner, value: me}]}]\n',
    pod: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'web', labels: {} }, spec: { containers: [] } },
  });

  it('returns no patch unless mutating is true', async () => {
    const { policies, pod } = setup();
    expect((await evaluateInput(policies, pod)).patch).toEqual([]);
    expect((await evaluateInput(policies, pod, { kubernetes: { mutating: true } })).patch).toEqual([{ op: 'add', path: '/metadata/labels/owner', value: 'me' }]);
  });

  it('says why an expected patch is missing from a validating answer', async () => {
    const { policies, pod } = setup();
    const result = checkPatch(await evaluateInput(policies, pod), [{ path: '/metadata/labels/owner' }]);
    expect(result.pass).toBe(false);
    expect(result.message).toContain('a validating webhook (the default, as createAdmissionWebhook) never patches; set kubernetes: {mutating: true}');
  });
});
