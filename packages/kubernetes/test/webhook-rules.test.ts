import { describe, expect, it } from 'vitest';
import { type PolicyLoadError } from '@verdict/core';
import { createAdmissionWebhook, type AdmissionReviewOptions, type KubernetesObject } from '@verdict/kubernetes';
import { flagPolicy, namespace, pod, webhookFor } from './helpers.js';

const NAMESPACES: Record<string, Record<string, string>> = { prod: { environment: 'prod' }, dev: { environment: 'dev' } };

function setup(match: unknown) {
  const { run } = webhookFor({ policies: flagPolicy(match) as never, namespaceLabels: (name) => NAMESPACES[name] });
  const outcome = async (object: KubernetesObject | null, options: AdmissionReviewOptions = {}) => {
    const { response } = await run(object, options);
    if (response.allowed) return 'no match';
    return response.status!.message!.includes('unable to match') ? 'error' : 'match';
  };
  return { outcome };
}

function problems(match: unknown): string[] {
  try {
    createAdmissionWebhook({ policies: flagPolicy(match) as never });
  } catch (error) {
    return (error as PolicyLoadError).problems.map((p) => `${p.path}: ${p.message}`);
  }
  throw new Error('expected a load error');
}

const rule = (resources: string[], extra: Record<string, unknown> = {}) => ({ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources, ...extra });
const deployment: KubernetesObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'prod' }, spec: { replicas: 1 } };
const scale: KubernetesObject = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', namespace: 'prod' }, spec: { replicas: 3 } };
/** Seed 001's request: UPDATE of deployments/scale, kind autoscaling/v1 Scale. */
const scaleUpdate: AdmissionReviewOptions = {
  oldObject: scale, subResource: 'scale', resource: { group: 'apps', version: 'v1', resource: 'deployments' },
  userInfo: { username: 'admin', uid: '014fbff9a07c', groups: ['system:authenticated', 'my-admin-group'], extra: { 'some-key': ['some-value1', 'some-value2'] } },
};
const clusterRole: KubernetesObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'reader' } };

describe('rules: resources and subresources', () => {
  it('matches a resource without its subresources, and "pods/*" with them', async () => {
    expect(await setup({ rules: [rule(['deployments'])] }).outcome(deployment)).toBe('match');
    expect(await setup({ rules: [rule(['deployments'])] }).outcome(scale, scaleUpdate)).toBe('no match');
    expect(await setup({ rules: [rule(['deployments/*'])] }).outcome(scale, scaleUpdate)).toBe('match');
    expect(await setup({ rules: [rule(['deployments/*'])] }).outcome(deployment)).toBe('match');
    expect(await setup({ rules: [rule(['deployments/scale'])] }).outcome(scale, scaleUpdate)).toBe('match');
    expect(await setup({ rules: [rule(['deployments/status'])] }).outcome(scale, scaleUpdate)).toBe('no match');
  });

  it('matches "*/scale" for every scale subresource, "*" for every resource without subresources, "*/*" for everything', async () => {
    expect(await setup({ rules: [rule(['*/scale'])] }).outcome(scale, scaleUpdate)).toBe('match');
    expect(await setup({ rules: [rule(['*/scale'])] }).outcome(deployment)).toBe('no match');
    expect(await setup({ rules: [rule(['*'])] }).outcome(deployment)).toBe('match');
    expect(await setup({ rules: [rule(['*'])] }).outcome(scale, scaleUpdate)).toBe('no match');
    expect(await setup({ rules: [rule(['*/*'])] }).outcome(scale, scaleUpdate)).toBe('match');
  });

  it('matches operations, apiGroups and apiVersions exactly or with "*", against the request resource', async () => {
    const seed001 = { operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1', 'v1beta1'], resources: ['deployments', 'replicasets'], scope: 'Namespaced' };
    const { outcome } = setup({ rules: [seed001] });
    expect(await outcome(deployment)).toBe('match');
    expect(await outcome(deployment, { operation: 'DELETE' })).toBe('no match');
    expect(await outcome(scale, scaleUpdate)).toBe('no match');
    expect(await outcome(pod({ namespace: 'prod' }))).toBe('no match');
    expect(await setup({ rules: [rule(['deployments'], { apiVersions: ['v1beta1'] })] }).outcome(deployment)).toBe('no match');
    expect(await setup({ rules: [rule(['deployments'], { apiGroups: [''] })] }).outcome(deployment)).toBe('no match');
  });

  it('ORs rules', async () => {
    const { outcome } = setup({ rules: [rule(['pods']), rule(['deployments'])] });
    expect(await outcome(deployment)).toBe('match');
    expect(await outcome(clusterRole)).toBe('no match');
  });
});

describe('rules: scope', () => {
  it('Cluster matches cluster-scoped resources and namespaces, including their subresources', async () => {
    const { outcome } = setup({ rules: [rule(['*', 'namespaces/finalize'], { scope: 'Cluster' })] });
    expect(await outcome(clusterRole)).toBe('match');
    expect(await outcome(namespace('prod'))).toBe('match');
    expect(await outcome(namespace('prod'), { subResource: 'finalize', operation: 'UPDATE', oldObject: namespace('prod') })).toBe('match');
    expect(await outcome(pod({ namespace: 'prod' }))).toBe('no match');
  });

  it('Namespaced matches namespaced resources but not namespaces, and "*" matches both', async () => {
    const namespaced = setup({ rules: [rule(['*'], { scope: 'Namespaced' })] });
    expect(await namespaced.outcome(pod({ namespace: 'prod' }))).toBe('match');
    expect(await namespaced.outcome(namespace('prod'))).toBe('no match');
    expect(await namespaced.outcome(clusterRole)).toBe('no match');
    expect(await setup({ rules: [rule(['*'], { scope: '*' })] }).outcome(namespace('prod'))).toBe('match');
  });
});

describe('rules: validation as the apiserver does it', () => {
  it.each([
    [[rule(['*/*', 'pods'])], 'if "*/*" is present in resources, it must be the only entry'],
    [[rule(['*', 'pods'])], 'if "*" is present in resources, it must not be combined with other resources without subresources'],
    [[rule(['pods/*', 'pods/status'])], 'if "pods/*" is present, "pods/status" must not be listed'],
    [[rule(['*/status', 'pods/status'])], 'if "*/status" is present, "pods/status" must not be listed'],
    [[rule(['pods'], { apiGroups: ['*', 'apps'] })], 'if "*" is present in apiGroups, it must be the only entry'],
    [[{ operations: ['CREATE'], apiGroups: [''], resources: ['pods'] }], 'apiVersions is required and must not be empty (use ["*"] for all)'],
    [[rule(['pods'], { operations: ['Create'] })], 'operation "Create" is not one of CREATE, UPDATE, DELETE, CONNECT, *; did you mean "CREATE"?'],
    [[rule(['pods'], { scope: 'Namespace' })], 'scope must be "*", "Cluster" or "Namespaced" (got "Namespace"); did you mean "Namespaced"?'],
    [[{ ...rule(['pods']), resource: ['pods'] }], 'unknown field "resource" in a rule; did you mean "resources"?'],
    [[], 'rules is empty, so nothing would ever match (a webhook without rules is never called); remove the key to match every request'],
  ])('refuses %j: %s', (rules, message) => {
    expect(problems({ rules }).map((p) => p.replace(/^[^:]*: /, ''))).toContain(message);
  });
});

describe('objectSelector', () => {
  it('matches the labels of object or oldObject; DELETE has only oldObject', async () => {
    const { outcome } = setup({ objectSelector: { matchLabels: { app: 'web' } } });
    const labelled = pod({ name: 'p', namespace: 'prod', labels: { app: 'web' } });
    const plain = pod({ name: 'p', namespace: 'prod' });
    expect(await outcome(labelled)).toBe('match');
    expect(await outcome(plain)).toBe('no match');
    expect(await outcome(plain, { oldObject: labelled })).toBe('match');
    expect(await outcome(labelled, { operation: 'DELETE' })).toBe('match');
    expect(await outcome(plain, { operation: 'DELETE' })).toBe('no match');
  });

  it('never matches an object without metadata, unless the selector is empty', async () => {
    const options = { apiVersion: 'v1', kind: 'PodProxyOptions', path: '/' };
    const connect: AdmissionReviewOptions = { operation: 'CONNECT', resource: 'pods', subResource: 'proxy', namespace: 'prod', name: 'p' };
    expect(await setup({ objectSelector: { matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] } }).outcome(options, connect)).toBe('no match');
    expect(await setup({ objectSelector: {} }).outcome(options, connect)).toBe('match');
  });

  it('accepts shell-operator\'s labelSelector spelling, but not both', async () => {
    expect(await setup({ rules: [rule(['pods'])], labelSelector: { matchLabels: { app: 'web' } } }).outcome(pod({ namespace: 'prod' }))).toBe('no match');
    expect(problems({ objectSelector: {}, labelSelector: {} })[0]).toMatch(/give either objectSelector or labelSelector/);
  });
});

describe('namespaceSelector (webhook)', () => {
  it('matches the request namespace\'s labels and never exempts cluster-scoped requests', async () => {
    const seed001 = { matchExpressions: [{ key: 'environment', operator: 'In', values: ['prod', 'staging'] }] };
    const { outcome } = setup({ rules: [rule(['*'])], namespaceSelector: seed001 });
    expect(await outcome(pod({ namespace: 'prod' }))).toBe('match');
    expect(await outcome(pod({ namespace: 'dev' }))).toBe('no match');
    expect(await outcome(clusterRole)).toBe('match');
  });

  it('uses the labels of the Namespace being created or updated', async () => {
    const { outcome } = setup({ objectSelector: {}, namespaceSelector: { matchLabels: { environment: 'prod' } } });
    expect(await outcome(namespace('new-one', { environment: 'prod' }))).toBe('match');
    expect(await outcome(namespace('new-one', { environment: 'dev' }))).toBe('no match');
  });

  it('fails the request when the namespace is unknown, but only once rules and objectSelector matched', async () => {
    const { outcome } = setup({ rules: [rule(['pods'])], objectSelector: { matchLabels: { app: 'web' } }, namespaceSelector: { matchLabels: { environment: 'prod' } } });
    expect(await outcome(pod({ namespace: 'ghost', labels: { app: 'web' } }))).toBe('error');
    expect(await outcome(pod({ namespace: 'ghost' }))).toBe('no match');
    expect(await outcome(deployment)).toBe('no match');
  });

  it('accepts shell-operator\'s namespace.labelSelector form (seed 001 binding)', async () => {
    const binding = {
      rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1', 'v1beta1'], resources: ['deployments', 'replicasets'], scope: 'Namespaced' }],
      labelSelector: { matchLabels: { label1: 'value1' } },
      namespace: { labelSelector: { matchExpressions: [{ key: 'environment', operator: 'In', values: ['prod', 'staging'] }] } },
    };
    const { outcome } = setup(binding);
    const labelled = { ...deployment, metadata: { name: 'web', namespace: 'prod', labels: { label1: 'value1' } } };
    expect(await outcome(labelled)).toBe('match');
    expect(await outcome({ ...labelled, metadata: { ...labelled.metadata, namespace: 'dev' } })).toBe('no match');
    expect(problems({ namespace: { labelSelector: {} }, namespaceSelector: {} })[0]).toMatch(/give either namespaceSelector or namespace.labelSelector/);
  });
});
