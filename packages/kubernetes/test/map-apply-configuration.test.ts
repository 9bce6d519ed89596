/**
 * ApplyConfiguration mutations merged as the API server merges them (structured-merge-diff), with the cases
 * of its own tests (apiserver policy/mutating/patch/smd_test.go) and the list-map keys of the built-in types.
 */
import { describe, expect, it } from 'vitest';
import type { PolicyLoadError } from '@verdict/core';
import { admissionReviewFor, loadKubernetesPolicies, toAdmissionInput, type KubernetesObject } from '@verdict/kubernetes';
import { webhookFor } from './helpers.js';
import { bound } from './map-helpers.js';

const deployment = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubernetesObject => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', ...metadata }, spec,
});
const podSpec = (spec: Record<string, unknown>) => ({ template: { spec } });

function setup(expression: string) {
  const set = loadKubernetesPolicies(bound('apply.example.com', [{ apply: expression }]));
  const run = (object: KubernetesObject) => set.evaluate(toAdmissionInput(admissionReviewFor(object)));
  return { set, run, mutated: (object: KubernetesObject) => run(object).mutated };
}

describe('MutatingAdmissionPolicy with ApplyConfiguration mutations', () => {
  it('adds an element to a list-map (volumes, by name)', () => {
    const { mutated } = setup('Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{volumes: [Object.spec.template.spec.volumes{name: "y"}]}}}}');
    expect(mutated(deployment(podSpec({ volumes: [{ name: 'x' }] })))).toMatchObject({ spec: podSpec({ volumes: [{ name: 'x' }, { name: 'y' }] }) });
  });

  it('merges into the list-map element with the same key', () => {
    const { mutated } = setup('Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{volumes: [Object.spec.template.spec.volumes{name: "y", hostPath: Object.spec.template.spec.volumes.hostPath{path: "a"}}]}}}}');
    expect(mutated(deployment(podSpec({ volumes: [{ name: 'x' }, { name: 'y' }] })))).toMatchObject({ spec: podSpec({ volumes: [{ name: 'x' }, { name: 'y', hostPath: { path: 'a' } }] }) });
  });

  it('sets scalars computed from object and oldObject', () => {
    const { set } = setup('Object{spec: Object.spec{replicas: oldObject.spec.replicas % 2 == 0 ? oldObject.spec.replicas + 1 : oldObject.spec.replicas}}');
    const decision = set.evaluate(toAdmissionInput(admissionReviewFor(deployment({ replicas: 1 }), { oldObject: deployment({ replicas: 2 }) })));
    expect(decision.mutated).toMatchObject({ spec: { replicas: 3 } });
  });

  it('builds a whole pod template, with a container merged by name and its ports by containerPort and protocol (TCP by default)', () => {
    const { mutated } = setup(`Object{spec: Object.spec{replicas: 1, template: Object.spec.template{
      metadata: Object.spec.template.metadata{labels: {"app": "nginx"}},
      spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{
        name: "nginx", image: "nginx:1.14.2",
        ports: [Object.spec.template.spec.containers.ports{containerPort: 80}],
        resources: Object.spec.template.spec.containers.resources{limits: {"cpu": "128M"}}}]}}}}`);
    const before = deployment(podSpec({ containers: [{ name: 'nginx', image: 'nginx:1.14', ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }] }, { name: 'log', image: 'busybox' }] }));
    expect(mutated(before)).toMatchObject({
      spec: {
        replicas: 1,
        template: {
          metadata: { labels: { app: 'nginx' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx:1.14.2', ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }], resources: { limits: { cpu: '128M' } } }, { name: 'log', image: 'busybox' }] },
        },
      },
    });
  });

  it('collapses duplicate env entries only when the configuration names them (as server-side apply)', () => {
    const env = (container: Record<string, unknown>) => deployment(podSpec({ containers: [container] }));
    const original = { name: 'nginx', env: [{ name: 'test', value: 'a' }, { name: 'test', value: 'b' }, { name: 'foo', value: 'bar' }] };
    expect(setup('Object{spec: Object.spec{replicas: 3}}').mutated(env(original))).toMatchObject({ spec: { replicas: 3, template: { spec: { containers: [original] } } } });
    const { mutated } = setup('Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "nginx", env: [Object.spec.template.spec.containers.env{name: "test", value: "c"}]}]}}}}');
    expect(mutated(env(original))).toMatchObject({ spec: podSpec({ containers: [{ name: 'nginx', env: [{ name: 'test', value: 'c' }, { name: 'foo', value: 'bar' }] }] }) });
  });

  it('merges maps key by key and takes the union of a set (finalizers), in the order of server-side apply', () => {
    const { mutated } = setup('Object{metadata: Object.metadata{labels: {"team": "blue"}, finalizers: ["example.com/cleanup", "kubernetes"]}}');
    expect(mutated(deployment({ replicas: 1 }, { labels: { app: 'web' }, finalizers: ['kubernetes'] }))).toMatchObject({
      metadata: { labels: { app: 'web', team: 'blue' }, finalizers: ['example.com/cleanup', 'kubernetes'] },
    });
  });

  it('refuses to touch an atomic struct (the selector) or an atomic list, naming every such path', () => {
    const { run } = setup('Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"l": "v"}}, template: Object.spec.template{spec: Object.spec.template.spec{tolerations: []}}}}');
    const decision = run(deployment({ replicas: 1 }));
    expect(decision.patch).toEqual([]);
    expect(decision.errors[0]!.message).toBe('mutate rule "mutations[0]" was not applied: error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector, .spec.template.spec.tolerations');
  });

  it('refuses an element of a list-map without its key', () => {
    const { run } = setup('Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{image: "x"}]}}}}');
    expect(run(deployment({})).errors[0]!.message).toContain('.spec.template.spec.containers: associative list with keys has an element that omits key field "name"');
  });

  it('refuses at load a construction whose type name is not its field path, or an expression that does not construct Object', () => {
    const problems = (expression: string) => {
      try {
        loadKubernetesPolicies(bound('apply.example.com', [{ apply: expression }]));
        return [];
      } catch (error) {
        return (error as PolicyLoadError).problems.map((p) => `${p.path}: ${p.message}`);
      }
    };
    expect(problems('Object{spec: Object.specx{replicas: 1}}')).toEqual([
      '/spec/mutations/0/applyConfiguration/expression: invalid CEL expression: type mismatch: unexpected type name "Object.specx", expected "Object.spec", which matches field name path from root Object type',
    ]);
    expect(problems('Object.spec.metadata{}')).toEqual(['/spec/mutations/0/applyConfiguration/expression: invalid CEL expression: must evaluate to Object but got Object.spec.metadata']);
  });

  it('says at run time that a value that is not an object cannot be applied', () => {
    expect(setup('"I\'m a teapot!"').run(deployment({})).errors[0]!.message).toBe('mutate rule "mutations[0]" was not applied: must evaluate to Object but got string');
  });

  it('answers a mutating webhook with a JSON Patch that the API server applies to the same result', async () => {
    const { run } = webhookFor({ policies: bound('apply.example.com', [{ apply: 'Object{metadata: Object.metadata{labels: {"team": "blue"}}, spec: Object.spec{replicas: 2}}' }]) as never, mutating: true });
    const { response, patched } = await run(deployment({ replicas: 1 }, { labels: { app: 'web' } }));
    expect(response.patchType).toBe('JSONPatch');
    expect(patched).toMatchObject({ metadata: { labels: { app: 'web', team: 'blue' } }, spec: { replicas: 2 } });
  });
});
