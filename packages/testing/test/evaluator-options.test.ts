import { describe, expect, it } from 'vitest';
import { parsePolicyDocuments } from '@verdict/core';
import { InventoryCache } from '@verdict/kubernetes';
import { createEvaluator } from '@verdict/testing';

const POLICIES = parsePolicyDocuments(`
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: pods-need-owner}
spec:
  match: {kinds: [{apiGroups: [""], kinds: [Pod]}]}
  validate:
    - {name: owner, rule: {"!!": {var: object.metadata.labels.owner}}, message: pods need an owner}
---
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: one-secret-name}
spec:
  match: {kinds: [{apiGroups: [""], kinds: [Secret]}]}
  validate:
    - name: unused
      rule: {"!": {get: [{var: inventory.namespace}, [{var: namespace}, v1, Secret, {var: name}]]}}
      message: secret {{name}} exists already
`);
const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'web' } };
const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'token', namespace: 'web' } };

describe('evaluator options for Kubernetes inputs', () => {
  async function setup() {
    return { evaluator: await createEvaluator('kubernetes', POLICIES) };
  }

  it('explains every policy by default, and only the matched ones with explain: false', async () => {
    const { evaluator } = await setup();
    const full = await evaluator.evaluate(pod);
    const quick = await evaluator.evaluate(pod, { explain: false });
    expect(full.decision?.trace.map((t) => [t.policy, t.matched])).toEqual([['one-secret-name', false], ['pods-need-owner', true]]);
    expect(quick.decision?.trace.map((t) => [t.policy, t.matched])).toEqual([['pods-need-owner', true]]);
    expect(quick.denials).toEqual(full.denials);
    expect(quick.denials).toEqual(['[pods-need-owner] pods need an owner']);
  });

  it('hands the inventory of one call to the policies, and forgets it after the call', async () => {
    const { evaluator } = await setup();
    const inventory = new InventoryCache({ objects: [secret] }).data;
    expect((await evaluator.evaluate(secret, { inventory })).denials).toEqual(['[one-secret-name] secret token exists already']);
    expect((await evaluator.evaluate(secret)).allowed).toBe(true);
  });

  it('takes the inventory as a list of objects too', async () => {
    const { evaluator } = await setup();
    expect((await evaluator.evaluate(secret, { inventory: [secret] })).allowed).toBe(false);
    await expect(evaluator.evaluate(secret, { inventory: [{ kind: 'Secret' }] })).rejects.toThrow(/inventory object needs apiVersion, kind and metadata\.name/);
  });
});

describe('the API server\'s defaults for bare Kubernetes objects', () => {
  const replicas = parsePolicyDocuments(`
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: replica-limit}
spec:
  match: {kinds: [{apiGroups: [apps], kinds: [Deployment]}]}
  validate:
    - {name: limit, rule: {"<=": [{var: object.spec.replicas}, 3]}, message: at most 3 replicas}
    - {name: set, rule: {"!=": [{var: object.spec.replicas}, null]}, message: replicas must be set}
`);
  const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'web' }, spec: { template: { spec: { containers: [] } } } };

  it('reviews the object as written unless asked (suites, gator and kyverno test files), and defaulted with defaults: true (verdict eval, audit)', async () => {
    const evaluator = await createEvaluator('kubernetes', replicas);
    const written = await evaluator.evaluate(deployment);
    expect(written.allowed).toBe(false);
    expect(written.denials).toContain('[replica-limit] replicas must be set');
    const defaulted = await evaluator.evaluate(deployment, { defaults: true });
    expect(defaulted.allowed).toBe(true);
  });
});
