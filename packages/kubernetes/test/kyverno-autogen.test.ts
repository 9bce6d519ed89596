import { describe, expect, it } from 'vitest';
import { admissionReviewFor, loadKubernetesPolicies, toAdmissionInput, validatingPolicyResults } from '@verdict/kubernetes';
import { rewriteSpec } from '../src/kyverno/autogen.js';
import { webhookFor } from './helpers.js';
import { controller, NO_LATEST, PODS, podWith, validatingPolicy } from './kyverno-helpers.js';

function setup(spec: Record<string, unknown> = {}) {
  const policies = [validatingPolicy('no-latest', { ...NO_LATEST, ...spec })];
  return { ...webhookFor({ policies: policies as never, namespaceLabels: () => ({}) }), set: loadKubernetesPolicies(policies as never) };
}

describe('autogen: a ValidatingPolicy for Pods also applies to Pod controllers', () => {
  it.each(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'CronJob'])('checks the pod template of a %s with the Pod policy and its message', async (kind) => {
    const { run } = setup();
    expect((await run(controller(kind, 'nginx:latest'))).response.status?.message).toBe('Policy no-latest failed: An image tag other than latest is required.');
    expect((await run(controller(kind, 'nginx:1.27'))).response.allowed).toBe(true);
  });

  it('leaves ReplicationControllers alone, as Kyverno\'s CEL autogen does (it has no replicationcontrollers target)', async () => {
    expect((await setup().run(controller('ReplicationController', 'nginx:latest'))).response.allowed).toBe(true);
  });

  it('generates Kyverno\'s two variants: the defaults on spec.template, cronjobs on spec.jobTemplate.spec.template', () => {
    const { set } = setup();
    const results = validatingPolicyResults(set, set.evaluate(toAdmissionInput(admissionReviewFor(controller('CronJob', 'nginx:1'))), { explain: true }));
    expect(results.map((r) => [r.autogen ?? 'policy', r.result])).toEqual([['policy', 'none'], ['cronjobs', 'pass'], ['defaults', 'none']]);
    expect(results[2]!.matchConstraints).toEqual({
      resourceRules: [
        { apiGroups: ['apps'], apiVersions: ['v1'], resources: ['daemonsets', 'deployments', 'replicasets', 'statefulsets'], operations: ['CREATE', 'UPDATE'] },
        { apiGroups: ['batch'], apiVersions: ['v1'], resources: ['jobs'], operations: ['CREATE', 'UPDATE'] },
      ],
    });
  });

  it('generates only the controllers autogen.podControllers.controllers names (by resource), and none for an empty list', async () => {
    const only = setup({ autogen: { podControllers: { controllers: ['deployments'] } } });
    expect((await only.run(controller('Deployment', 'nginx:latest'))).response.allowed).toBe(false);
    expect((await only.run(controller('StatefulSet', 'nginx:latest'))).response.allowed).toBe(true);
    const off = setup({ autogen: { podControllers: { controllers: [] } } });
    expect((await off.run(controller('Deployment', 'nginx:latest'))).response.allowed).toBe(true);
    expect((await off.run(podWith('nginx:latest'))).response.allowed).toBe(false);
  });

  it('ignores controller names Kyverno does not know, such as kinds ("Deployment")', async () => {
    const { run } = setup({ autogen: { podControllers: { controllers: ['Deployment'] } } });
    expect((await run(controller('Deployment', 'nginx:latest'))).response.allowed).toBe(true);
  });

  it('does not generate variants for a policy that matches more than Pods, selects objects or names resources', async () => {
    const both = { resourceRules: [{ ...PODS.resourceRules[0], resources: ['pods', 'services'] }] };
    const byLabel = { ...PODS, objectSelector: { matchLabels: { app: 'web' } } };
    const byName = { resourceRules: [{ ...PODS.resourceRules[0], resourceNames: ['web'] }] };
    for (const matchConstraints of [both, byLabel, byName]) {
      expect((await setup({ matchConstraints }).run(controller('Deployment', 'nginx:latest'))).response.allowed).toBe(true);
    }
  });

  it('keeps the Pod rule\'s namespaceSelector on the variants', async () => {
    const { webhook } = webhookFor({
      policies: [validatingPolicy('no-latest', { ...NO_LATEST, matchConstraints: { ...PODS, namespaceSelector: { matchLabels: { env: 'prod' } } } })] as never,
      namespaceLabels: (name): Record<string, string> => (name === 'prod' ? { env: 'prod' } : {}),
    });
    expect((await webhook.review(admissionReviewFor(controller('Deployment', 'nginx:latest', 'prod')))).response.allowed).toBe(false);
    expect((await webhook.review(admissionReviewFor(controller('Deployment', 'nginx:latest', 'dev')))).response.allowed).toBe(true);
  });

  it('rewrites messages and variables too, so a message naming object.metadata.name reads the template\'s metadata', async () => {
    const { run } = setup({
      variables: [{ name: 'images', expression: 'object.spec.containers.map(c, c.image)' }],
      validations: [{ expression: "!variables.images.exists(i, i.endsWith(':latest'))", messageExpression: "'in ' + object.metadata.namespace + ': ' + object.metadata.labels.app" }],
    });
    expect((await run(controller('Deployment', 'nginx:latest', 'shop'))).response.status?.message).toBe('Policy no-latest failed: in shop: web');
  });
});

describe('Kyverno\'s text rewriting of an autogen variant', () => {
  it('replaces object.spec and object.metadata as text, in every field, oldObject included', () => {
    const spec = { validations: [{ expression: 'object.spec.x == oldObject.spec.x', message: 'see object.metadata.name' }], variables: [{ name: 'v', expression: 'object.specification' }] };
    expect(rewriteSpec(spec, 'defaults')).toEqual({
      validations: [{ expression: 'object.spec.template.spec.x == oldObject.spec.template.spec.x', message: 'see object.spec.template.metadata.name' }],
      variables: [{ name: 'v', expression: 'object.spec.template.specification' }],
    });
  });

  it('keeps object.metadata.namespace (a protected suffix) but not a longer field starting with it', () => {
    expect(rewriteSpec({ e: 'object.metadata.namespace + object.metadata.namespaceX' }, 'cronjobs')).toEqual({
      e: 'object.metadata.namespace + object.spec.jobTemplate.spec.template.metadata.namespaceX',
    });
  });

  it('leaves optional selections (object.?spec) alone, as Kyverno\'s replacement does', () => {
    expect(rewriteSpec({ e: 'object.?spec.?containers' }, 'defaults')).toEqual({ e: 'object.?spec.?containers' });
  });
});
