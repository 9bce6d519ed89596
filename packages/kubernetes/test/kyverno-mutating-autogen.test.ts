import { describe, expect, it } from 'vitest';
import { convertPodToTemplate } from '../src/mpol/autogen.js';
import { webhookFor } from './helpers.js';
import { controller, PODS } from './kyverno-helpers.js';

/** Kyverno's test removes all whitespace before comparing (`strings.Join(strings.Fields(s), "")`). */
const normalize = (text: string) => text.replace(/\s+/g, '');

describe("Kyverno's MutatingPolicy autogen rewrite (kyverno pkg/cel/policies/mpol/autogen tests)", () => {
  it.each([
    ['an empty expression', 'deployments', '', ''],
    [
      'an expression without containers', 'deployments',
      "Object{metadata: Object.metadata{labels: Object.metadata.labels{foo: 'bar'}}}",
      "Object{spec: Object.spec{template: Object.spec.template{metadata: Object.metadata{labels: Object.spec.template.metadata.labels{foo: 'bar'}}}}}",
    ],
    [
      'whitespace between Object and its brace', 'deployments',
      'Object {\n  spec: Object.spec {\n    automountServiceAccountToken: false,\n  }\n}',
      'Object{spec: Object.spec{template: Object.spec.template{\n  spec: Object.spec.template.spec{\n    automountServiceAccountToken: false,\n  }\n}}}',
    ],
    [
      'a nested expression for CronJobs', 'cronjobs',
      'Object{\n  spec: Object.spec{\n    containers: object.spec.containers.map(container, Object.spec.containers{\n      name: container.name,\n      env: [Object.spec.containers.env{\n        name: "ENV",\n        value: "prod"\n      }],\n      securityContext: Object.spec.containers.securityContext{\n        allowPrivilegeEscalation: false\n      }\n    })\n  }\n}',
      'Object{spec: Object.spec{jobTemplate: Object.spec.jobTemplate{spec: Object.spec.jobTemplate.spec{template: Object.spec.jobTemplate.spec.template{\n  spec: Object.spec.jobTemplate.spec.template.spec{\n    containers: object.spec.jobTemplate.spec.template.spec.containers.map(container, Object.spec.jobTemplate.spec.template.spec.containers{\n      name: container.name,\n      env: [Object.spec.jobTemplate.spec.template.spec.containers.env{\n        name: "ENV",\n        value: "prod"\n      }],\n      securityContext: Object.spec.jobTemplate.spec.template.spec.containers.securityContext{\n        allowPrivilegeEscalation: false\n      }\n    })\n  }\n}}}}}',
    ],
    ['namespaceObject is not an object to rewrite', 'defaults', "'istio.io/dataplane-mode' in namespaceObject.metadata.labels", "'istio.io/dataplane-mode' in namespaceObject.metadata.labels"],
  ])('rewrites %s', (_, config, input, expected) => {
    expect(normalize(convertPodToTemplate(input, config))).toBe(normalize(expected));
  });

  it('makes a variant whose constructions no longer match their field paths fail when it runs, as in Kyverno, while the policy loads', async () => {
    const { run } = webhookFor({
      mutating: true, namespaceLabels: () => ({}),
      policies: [{
        apiVersion: 'policies.kyverno.io/v1', kind: 'MutatingPolicy', metadata: { name: 'safe-to-evict' },
        spec: { matchConstraints: PODS, mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{annotations: {"safe-to-evict": "true"}}}' } }] },
      }] as never,
    });
    const pod = await run({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
    expect(pod.patch).toEqual([{ op: 'add', path: '/metadata/annotations', value: { 'safe-to-evict': 'true' } }]);
    const deployment = await run(controller('Deployment', 'nginx'));
    expect(deployment.response.allowed).toBe(false);
    expect(deployment.response.status?.message).toMatch(/Errors: \[Policy safe-to-evict: failed to evaluate policy: .*type mismatch: unexpected type name "Object.metadata", expected "Object.spec.template.metadata"/);
  });
});
