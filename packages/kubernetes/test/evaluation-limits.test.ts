import { compilePolicies, VerdictError } from '@verdict/core';
import { createAdmissionWebhook, FAILED_OPEN_ANNOTATION, kubernetesDialect, type AdmissionWebhookOptions, type KubernetesObject } from '@verdict/kubernetes';
import { describe, expect, it } from 'vitest';
import { webhookFor } from './helpers.js';

const pods = { kinds: [{ apiGroups: [''], kinds: ['Pod'] }] };
const perContainer = (name: string, rule: unknown, message = 'container {{element.name}} is not allowed') => ({
  apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name },
  spec: { match: pods, validate: [{ name: 'each', forEach: { var: 'object.spec.containers' }, rule, message }] },
});

function podWith(containers: number, image = (i: number) => `registry.io/app${i}`): KubernetesObject {
  return {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'big', namespace: 'default' },
    spec: { containers: Array.from({ length: containers }, (_, i) => ({ name: `c${i}`, image: image(i) })) },
  };
}

function setup(options: Omit<AdmissionWebhookOptions, 'policies'> & { policies: unknown[] }) {
  return webhookFor(options as AdmissionWebhookOptions);
}

describe('a request that exceeds the cost budget', () => {
  it('is denied with code 500 under failurePolicy Fail, naming the policy and rule', async () => {
    const { response } = await setup({ policies: [perContainer('images', { glob: ['registry.io/*', { var: 'element.image' }] })], limits: { costBudget: 500 } }).run(podWith(1000));
    expect(response.allowed).toBe(false);
    expect(response.status).toMatchObject({ code: 500, reason: 'InternalError' });
    expect(response.status?.message).toMatch(/^policy evaluation failed: \[images\] evaluation stopped in rule "each" of Policy "images": it exceeded the cost budget of 500 units/);
  });

  it('is admitted under failurePolicy Ignore, with the failure in the failed-open audit annotation', async () => {
    const { response } = await setup({ policies: [perContainer('images', true)], limits: { costBudget: 500 }, failurePolicy: 'Ignore' }).run(podWith(1000));
    expect(response.allowed).toBe(true);
    expect(response.auditAnnotations?.[FAILED_OPEN_ANNOTATION]).toMatch(/exceeded the cost budget of 500 units/);
  });

  it('is evaluated in full under the default budget, even with 20,000 containers', async () => {
    const { response } = await setup({ policies: [perContainer('images', { glob: ['registry.io/*', { var: 'element.image' }] })] }).run(podWith(20_000));
    expect(response.allowed).toBe(true);
  });
});

describe('the size of an admission answer', () => {
  it('lists the first maxViolations denials, then says how many more there are', async () => {
    const { response } = await setup({ policies: [perContainer('images', false)], limits: { maxViolations: 3 } }).run(podWith(50));
    expect(response.status?.code).toBe(403);
    expect((response.status?.message ?? '').split('\n')).toEqual([
      '[images] container c0 is not allowed', '[images] container c1 is not allowed', '[images] container c2 is not allowed',
      '… and 47 more violations (not listed)',
    ]);
  });

  it('keeps the denial message of a 100,000-container Pod small with the default limits', async () => {
    const { response } = await setup({ policies: [perContainer('images', false)] }).run(podWith(100_000));
    expect((response.status?.message ?? '').split('\n')).toHaveLength(101);
    expect((response.status?.message ?? '').length).toBeLessThan(5000);
  });

  it('refuses limits with a policy set that is already compiled', () => {
    const set = compilePolicies([perContainer('images', true)], { dialects: [kubernetesDialect], mutationTarget: '/object' });
    expect(() => createAdmissionWebhook({ policies: set, limits: { costBudget: 10 } })).toThrow(VerdictError);
    expect(() => createAdmissionWebhook({ policies: set })).not.toThrow();
  });
});

describe('Gatekeeper wildcards on hostile names', () => {
  it('match a 50,000-character namespace name with string tests (no pattern engine)', async () => {
    const policy = { ...perContainer('ns', false), spec: { ...perContainer('ns', false).spec, match: { ...pods, excludedNamespaces: ['*-system*', 'kube-*'] } } };
    const object = { ...podWith(1), metadata: { name: 'p', namespace: `${'-'.repeat(50_000)}x` } };
    const { response } = await setup({ policies: [policy] }).run(object);
    expect(response.status?.code).toBe(403);
  });
});
