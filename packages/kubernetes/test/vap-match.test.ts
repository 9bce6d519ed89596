import { describe, expect, it } from 'vitest';
import type { AdmissionWebhookOptions, KubernetesObject } from '@verdict/kubernetes';
import { namespace, webhookFor } from './helpers.js';
import { binding, deployment, policy } from './vap-helpers.js';

const P = 'match.example.com';
const denyAll = { validations: [{ expression: 'false', message: 'matched' }] };

function setup(matchConstraints: Record<string, unknown>, options: { binding?: Record<string, unknown>; namespaces?: Record<string, Record<string, string>>; failurePolicy?: string } = {}) {
  const spec = { ...denyAll, matchConstraints, ...(options.failurePolicy ? { failurePolicy: options.failurePolicy } : {}) };
  const namespaces = options.namespaces ?? { default: {} };
  return webhookFor({ policies: [policy(P, spec), binding('b.example.com', P, options.binding ?? {})], namespaceLabels: (name: string) => namespaces[name] } as AdmissionWebhookOptions);
}

const matched = async (run: ReturnType<typeof setup>['run'], object: KubernetesObject | null, options: Parameters<ReturnType<typeof setup>['run']>[1] = {}) => !(await run(object, options)).response.allowed;

const rule = (extra: Record<string, unknown> = {}) => ({ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'], ...extra });

describe('matchConstraints and matchResources', () => {
  it('match requests by operation, group, version and resource', async () => {
    const { run } = setup({ resourceRules: [rule()] });
    expect(await matched(run, deployment())).toBe(true);
    expect(await matched(run, deployment(), { operation: 'UPDATE', oldObject: deployment() })).toBe(false);
    expect(await matched(run, { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's', namespace: 'default' } })).toBe(false);
  });

  it('keep a rule with resourceNames to the named objects', async () => {
    const { run } = setup({ resourceRules: [rule({ resourceNames: ['web'] })] });
    expect(await matched(run, deployment({ name: 'web' }))).toBe(true);
    expect(await matched(run, deployment({ name: 'api' }))).toBe(false);
  });

  it('leave out what excludeResourceRules match, by name too', async () => {
    const { run } = setup({ resourceRules: [rule()], excludeResourceRules: [rule({ resourceNames: ['legacy'] })] });
    expect(await matched(run, deployment({ name: 'legacy' }))).toBe(false);
    expect(await matched(run, deployment({ name: 'web' }))).toBe(true);
  });

  it('match another version or a former group of the resource under matchPolicy Equivalent (the default), not under Exact', async () => {
    const beta = (object: KubernetesObject) => ({ kind: { group: 'extensions', version: 'v1beta1', kind: 'Deployment' }, resource: { group: 'extensions', version: 'v1beta1', resource: 'deployments' }, ...object } as never);
    const equivalent = setup({ resourceRules: [rule()] });
    expect(await matched(equivalent.run, deployment(), beta({}))).toBe(true);
    expect(await matched(equivalent.run, deployment(), { resource: { group: 'apps', version: 'v1beta2', resource: 'deployments' } })).toBe(true);
    const exact = setup({ resourceRules: [rule()], matchPolicy: 'Exact' });
    expect(await matched(exact.run, deployment(), beta({}))).toBe(false);
  });

  it('intersect the binding matchResources with the policy matchConstraints', async () => {
    const namespaces = { test: { environment: 'test' }, prod: { environment: 'prod' } };
    const { run } = setup({ resourceRules: [rule()] }, { namespaces, binding: { matchResources: { namespaceSelector: { matchLabels: { environment: 'test' } } } } });
    expect(await matched(run, deployment({ namespace: 'test' }))).toBe(true);
    expect(await matched(run, deployment({ namespace: 'prod' }))).toBe(false);
  });

  it('select objects by the labels of the object or of the old object', async () => {
    const { run } = setup({ resourceRules: [rule({ operations: ['CREATE', 'UPDATE'] })], objectSelector: { matchLabels: { checked: 'yes' } } });
    expect(await matched(run, deployment({ labels: { checked: 'yes' } }))).toBe(true);
    expect(await matched(run, deployment())).toBe(false);
    expect(await matched(run, deployment(), { operation: 'UPDATE', oldObject: deployment({ labels: { checked: 'yes' } }) })).toBe(true);
  });

  it('never exempt a cluster-scoped object with a namespaceSelector, and see a Namespace by its own labels', async () => {
    const nsRule = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['namespaces', 'nodes'] };
    const { run } = setup({ resourceRules: [nsRule], namespaceSelector: { matchLabels: { team: 'a' } } });
    expect(await matched(run, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } })).toBe(true);
    expect(await matched(run, namespace('team-a', { team: 'a' }))).toBe(true);
    expect(await matched(run, namespace('team-b', { team: 'b' }))).toBe(false);
  });

  it('follow failurePolicy when the namespace lookup does not know the namespace', async () => {
    const matchConstraints = { resourceRules: [rule()], namespaceSelector: { matchLabels: { team: 'a' } } };
    const fail = await setup(matchConstraints, { namespaces: {} }).run(deployment({ namespace: 'ghost' }));
    expect(fail.response.status?.message).toMatch(/^ValidatingAdmissionPolicy 'match.example.com' with binding 'b.example.com' denied request: .*ghost/);
    const ignore = await setup(matchConstraints, { namespaces: {}, failurePolicy: 'Ignore' }).run(deployment({ namespace: 'ghost' }));
    expect(ignore.response.allowed).toBe(true);
  });
});
