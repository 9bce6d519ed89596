import { describe, expect, it } from 'vitest';
import { PolicyLoadError } from '@verdict/core';
import { admissionReviewFor, createAdmissionWebhook, loadKubernetesPolicies, mutatingPolicyResults, toAdmissionInput } from '@verdict/kubernetes';
import { pod, uniqueName, webhookFor } from './helpers.js';
import { controller, PODS } from './kyverno-helpers.js';

/** A MutatingPolicy (`policies.kyverno.io/v1`) on Pods, with `spec` merged over it. */
function mutatingPolicy(name: string, spec: Record<string, unknown>, extra: { kind?: string; apiVersion?: string; namespace?: string } = {}): Record<string, unknown> {
  return {
    apiVersion: extra.apiVersion ?? 'policies.kyverno.io/v1',
    kind: extra.kind ?? 'MutatingPolicy',
    metadata: { name, ...(extra.namespace ? { namespace: extra.namespace } : {}) },
    spec: { matchConstraints: PODS, ...spec },
  };
}

const apply = (expression: string) => ({ patchType: 'ApplyConfiguration', applyConfiguration: { expression } });
const jsonPatch = (expression: string) => ({ patchType: 'JSONPatch', jsonPatch: { expression } });
const TEAM_LABEL = apply('Object{metadata: Object.metadata{labels: {"team": "platform"}}}');
const ALWAYS_PULL = apply('Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, imagePullPolicy: "Always"})}}');

function setup(policies: unknown[]) {
  return webhookFor({ policies: policies as never, mutating: true, namespaceLabels: () => ({}) });
}

function loadProblems(policies: unknown[], options: Parameters<typeof loadKubernetesPolicies>[1] = {}): string[] {
  try {
    loadKubernetesPolicies(policies as never, options);
  } catch (error) {
    if (error instanceof PolicyLoadError) return error.problems.map((p) => `${p.path}: ${p.message}`);
    throw error;
  }
  return [];
}

describe('Kyverno MutatingPolicy in a mutating webhook', () => {
  it('applies ApplyConfiguration and JSONPatch mutations in order, each on the object the previous one left', async () => {
    const { run } = setup([mutatingPolicy(uniqueName('mp'), {
      mutations: [TEAM_LABEL, jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels/copy", value: object.metadata.labels["team"]}]')],
    })]);
    const { response, patched } = await run(pod({ name: 'web', namespace: 'default' }));
    expect(response.allowed).toBe(true);
    expect((patched as { metadata: { labels: unknown } }).metadata.labels).toEqual({ team: 'platform', copy: 'platform' });
  });

  it('loads every version Kyverno serves, and NamespacedMutatingPolicy only in v1 and v1beta1', () => {
    for (const apiVersion of ['policies.kyverno.io/v1', 'policies.kyverno.io/v1beta1', 'policies.kyverno.io/v1alpha1']) {
      expect(loadProblems([mutatingPolicy('p', { mutations: [TEAM_LABEL] }, { apiVersion })])).toEqual([]);
    }
    expect(loadProblems([mutatingPolicy('p', { mutations: [TEAM_LABEL] }, { kind: 'NamespacedMutatingPolicy', apiVersion: 'policies.kyverno.io/v1alpha1', namespace: 'team' })]))
      .toEqual(['/apiVersion: Kyverno serves NamespacedMutatingPolicy as policies.kyverno.io/v1, policies.kyverno.io/v1beta1 (got "policies.kyverno.io/v1alpha1")']);
  });

  it('applies a NamespacedMutatingPolicy only to requests in its own namespace', async () => {
    const { run } = setup([mutatingPolicy('team-label', { mutations: [TEAM_LABEL] }, { kind: 'NamespacedMutatingPolicy', namespace: 'team' })]);
    expect((await run(pod({ name: 'a', namespace: 'team' }))).patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { team: 'platform' } }]);
    expect((await run(pod({ name: 'b', namespace: 'other' }))).response.patch).toBeUndefined();
  });

  it('skips the policy when a matchCondition is false, and reads variables lazily', async () => {
    const { run } = setup([mutatingPolicy(uniqueName('mp'), {
      matchConditions: [{ name: 'Only pods without a team label', expression: '!has(object.metadata.labels) || !("team" in object.metadata.labels)' }],
      variables: [{ name: 'team', expression: '"platform"' }],
      mutations: [apply('Object{metadata: Object.metadata{labels: {"team": variables.team}}}')],
    })]);
    expect((await run(pod({ name: 'a', namespace: 'default' }))).patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { team: 'platform' } }]);
    expect((await run(pod({ name: 'b', namespace: 'default', labels: { team: 'x' } }))).response.patch).toBeUndefined();
  });

  it('mutates the pod template of Pod controllers (autogen), rewriting ApplyConfiguration expressions as Kyverno does', async () => {
    const { run } = setup([mutatingPolicy(uniqueName('mp'), { mutations: [ALWAYS_PULL] })]);
    const deployment = await run(controller('Deployment', 'nginx:1'));
    expect(deployment.patch).toEqual([{ op: 'add', path: '/spec/template/spec/containers/0/imagePullPolicy', value: 'Always' }]);
    const cronjob = await run(controller('CronJob', 'nginx:1'));
    expect(cronjob.patch).toEqual([{ op: 'add', path: '/spec/jobTemplate/spec/template/spec/containers/0/imagePullPolicy', value: 'Always' }]);
  });

  it('gives no autogen variant to a policy whose controllers list is empty', async () => {
    const { run } = setup([mutatingPolicy(uniqueName('mp'), { mutations: [ALWAYS_PULL], autogen: { podControllers: { controllers: [] } } })]);
    expect((await run(controller('Deployment', 'nginx:1'))).response.patch).toBeUndefined();
  });

  it('denies under failurePolicy Fail with Kyverno\'s message, and leaves the policy out under Ignore', async () => {
    // An add below a field the Pod does not have fails in every JSON Patch library (RFC 6902).
    const failing = jsonPatch('[JSONPatch{op: "add", path: "/spec/affinity/nodeAffinity", value: {}}]');
    const fail = setup([mutatingPolicy('pin-node', { mutations: [failing] })]);
    const denied = await fail.run(pod({ name: 'web', namespace: 'default' }));
    expect(denied.response.allowed).toBe(false);
    expect(denied.response.status?.message).toBe('Resource: default/web, Kind: Pod, Errors: [Policy pin-node: failed to evaluate policy: cannot add at /spec/affinity/nodeAffinity: the path cannot be added to]');
    expect(denied.response.status?.code).toBeUndefined();
    const ignore = setup([mutatingPolicy('pin-node', { failurePolicy: 'Ignore', mutations: [failing] }), mutatingPolicy('team', { mutations: [TEAM_LABEL] })]);
    const admitted = await ignore.run(pod({ name: 'web', namespace: 'default' }));
    expect(admitted.response.allowed).toBe(true);
    expect(admitted.patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { team: 'platform' } }]);
  });

  it('keeps none of a policy\'s patches when one of its mutations fails, and runs none after it (failurePolicy Ignore)', () => {
    const set = loadKubernetesPolicies([mutatingPolicy('partial', {
      failurePolicy: 'Ignore',
      mutations: [TEAM_LABEL, jsonPatch('[JSONPatch{op: "add", path: "/spec/affinity/nodeAffinity", value: {}}]'), ALWAYS_PULL],
    })]);
    const decision = set.evaluate(toAdmissionInput(admissionReviewFor(pod({ name: 'web', namespace: 'default' }))));
    expect(decision).toMatchObject({ allowed: true, patch: [] });
    expect(decision.errors).toMatchObject([{ policy: 'partial', ignored: true }]);
    expect(decision.trace[0]!.rules).toEqual([
      { rule: 'mutations[0]', type: 'mutate', result: 'skipped', message: 'undone: mutations[1] of the policy failed' },
      { rule: 'mutations[1]', type: 'mutate', result: 'error', message: expect.stringContaining('cannot add at /spec/affinity/nodeAffinity') },
      { rule: 'mutations[2]', type: 'mutate', result: 'skipped', message: 'not evaluated: mutations[1] of the policy failed' },
    ]);
  });

  it('replaces atomic lists with evaluation.useServerSideApply, which the API server\'s guard refuses otherwise', async () => {
    const tolerations = apply('Object{spec: Object.spec{tolerations: [Object.spec.tolerations{key: "dedicated", operator: "Exists"}]}}');
    const guarded = setup([mutatingPolicy(uniqueName('mp'), { mutations: [tolerations], autogen: { podControllers: { controllers: [] } } })]);
    expect((await guarded.run(pod({ name: 'a', namespace: 'default' }))).response.status?.message).toContain('may not mutate atomic arrays, maps or structs: .spec.tolerations');
    const ssa = setup([mutatingPolicy(uniqueName('mp'), { mutations: [tolerations], evaluation: { useServerSideApply: true } })]);
    expect((await ssa.run(pod({ name: 'a', namespace: 'default' }))).patch).toEqual([{ op: 'add', path: '/spec/tolerations', value: [{ key: 'dedicated', operator: 'Exists' }] }]);
  });

  it('accepts has() on an indexed operand and null in place of a construction, as cel-go does', async () => {
    const { run } = setup([mutatingPolicy(uniqueName('mp'), {
      mutations: [jsonPatch(`object.spec.containers.map(c, !has(object.spec.containers[object.spec.containers.indexOf(c)].securityContext) ?
        JSONPatch{op: "add", path: "/spec/containers/" + string(object.spec.containers.indexOf(c)) + "/securityContext", value: dyn({})} : null).filter(p, p != null)`)],
    })]);
    expect((await run(pod({ name: 'a', namespace: 'default' }))).patch).toEqual([{ op: 'add', path: '/spec/containers/0/securityContext', value: {} }]);
  });

  it('takes no part in admission with evaluation.admission.enabled false (kyverno test applies it)', () => {
    const policy = mutatingPolicy('off', { mutations: [TEAM_LABEL], evaluation: { admission: { enabled: false }, mutateExisting: { enabled: false } } });
    expect(loadProblems([policy])).toEqual(['/spec/evaluation: disabling both admission and mutateExisting evaluation modes is not allowed']);
  });

  it('refuses mutateExisting, target selection and the cluster-backed libraries at load, saying why', () => {
    expect(loadProblems([mutatingPolicy('existing', { mutations: [TEAM_LABEL], evaluation: { mutateExisting: { enabled: true } }, targetMatchConstraints: { resourceRules: PODS.resourceRules } })])).toEqual([
      '/spec/evaluation/mutateExisting/enabled: mutateExisting mutates objects already in the cluster (through background update requests): verdict evaluates admission requests without access to a cluster, so a policy that needs it cannot be loaded (docs/kyverno.md#what-is-refused)',
      '/spec/targetMatchConstraints: targetMatchConstraints selects the existing objects mutateExisting mutates: verdict evaluates admission requests without access to a cluster, so a policy that needs it cannot be loaded (docs/kyverno.md#what-is-refused)',
    ]);
    const problems = loadProblems([mutatingPolicy('lookup', { variables: [{ name: 'cm', expression: 'resource.Get("v1", "configmaps", "default", "settings")' }], mutations: [TEAM_LABEL] })]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("Kyverno's resource library (resource.Get, resource.List, resource.Post) reads the cluster");
  });

  it('is refused by a validating webhook, which never applies a mutation', () => {
    const problems = loadProblems([mutatingPolicy('team', { mutations: [TEAM_LABEL] })], { webhook: 'validating' });
    expect(problems).toEqual([': MutatingPolicy "team" mutates objects, but these policies are loaded for a validating webhook, which never applies a mutation; load them for a mutating webhook (mutating: true in createAdmissionWebhook, kubernetes: {mutating: true} in a verdict config) or remove it']);
    expect(() => createAdmissionWebhook({ policies: loadKubernetesPolicies([mutatingPolicy('team', { mutations: [TEAM_LABEL] })]) })).toThrow(/holds MutatingPolicy "team"/);
  });

  it('reports each policy and autogen variant with mutatingPolicyResults', () => {
    const set = loadKubernetesPolicies([mutatingPolicy('team', { mutations: [TEAM_LABEL], matchConditions: [{ name: 'no-team', expression: '!has(object.metadata.labels)' }] })]);
    const results = (object: Record<string, unknown>) => mutatingPolicyResults(set, set.evaluate(toAdmissionInput(admissionReviewFor(object)), { explain: true })).map((r) => [r.autogen ?? 'policy', r.result, r.patch.length]);
    expect(results(pod({ name: 'a', namespace: 'default' }))).toEqual([['policy', 'pass', 1], ['cronjobs', 'none', 0], ['defaults', 'none', 0]]);
    expect(results(pod({ name: 'b', namespace: 'default', labels: { team: 'x' } }))).toEqual([['policy', 'skip', 0], ['cronjobs', 'none', 0], ['defaults', 'none', 0]]);
  });
});
