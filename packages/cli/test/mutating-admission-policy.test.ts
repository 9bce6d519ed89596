import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempTree } from './helpers.js';
import { run } from './audit-helpers.js';

/** The MutatingAdmissionPolicy example's policies: a sidecar (JSONPatch, with a ConfigMap parameter) and a team label (ApplyConfiguration). */
const MAP_POLICIES = join(ROOT, 'examples/mutating-admission-policy/policies');

function setup() {
  return tempTree({
    'config.yaml': 'kubernetes: {mutating: true}\n',
    'pod.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\nspec: {containers: [{name: web, image: web}]}\n',
  });
}

describe('verdict eval, explain and validate with MutatingAdmissionPolicies', () => {
  it('explains each mutation and the patch of a mutating webhook', async () => {
    const { dir, cleanup } = setup();
    try {
      const r = await run(['explain', '-p', MAP_POLICIES, '-i', 'pod.yaml', '-c', 'config.yaml', '--namespace-labels', 'mesh=enabled'], { cwd: dir });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/MutatingAdmissionPolicyBinding\/mesh-sidecar \(\S*sidecar\.yaml:\d+\): matched/);
      expect(r.stdout).toContain('params: ConfigMap mesh-system/mesh-proxy data: {image: mesh/proxy:v1.2.0}');
      expect(r.stdout).toContain('variables.proxy = {name: mesh-proxy, image: mesh/proxy:v1.2.0, restartPolicy: Always}');
      expect(r.stdout).toContain('✓ mutate mutations[0]');
      expect(r.stdout).toContain('patch: add /spec/initContainers');
    } finally {
      cleanup();
    }
  });

  it('answers eval with the base64 JSON Patch, and refuses the policies with where they are when the config is not mutating', async () => {
    const { dir, cleanup } = setup();
    try {
      const mutating = JSON.parse((await run(['eval', '-p', MAP_POLICIES, '-i', 'pod.yaml', '-c', 'config.yaml', '--namespace-labels', 'mesh=enabled'], { cwd: dir })).stdout) as { response: { patch?: string } };
      expect(JSON.parse(Buffer.from(mutating.response.patch!, 'base64').toString('utf8'))).toEqual([
        { op: 'add', path: '/spec/initContainers', value: [{ name: 'mesh-proxy', image: 'mesh/proxy:v1.2.0', restartPolicy: 'Always' }] },
      ]);
      const validating = await run(['eval', '-p', MAP_POLICIES, '-i', 'pod.yaml', '--namespace-labels', 'mesh=enabled'], { cwd: dir });
      expect(validating.code).not.toBe(0);
      expect(validating.stdout).toBe('');
      expect(validating.stderr).toMatch(/sidecar\.yaml:\d+:\d+ \(MutatingAdmissionPolicy\/mesh-sidecar\.example\.com\): MutatingAdmissionPolicy "mesh-sidecar\.example\.com" mutates objects/);
      expect(validating.stderr).toContain('a validating webhook, which never applies a mutation; load them for a mutating webhook');
      expect(validating.stderr).toMatch(/sidecar\.yaml:\d+:\d+ \(MutatingAdmissionPolicyBinding\/mesh-sidecar\): MutatingAdmissionPolicyBinding "mesh-sidecar" binds a MutatingAdmissionPolicy/);
    } finally {
      cleanup();
    }
  });

  it('validates the policies, and reports a bad construction where it is written', async () => {
    expect((await run(['validate', MAP_POLICIES])).stdout).toContain('valid');
    const { dir, cleanup } = tempTree({
      'bad.yaml': 'apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata: {name: bad.example.com}\nspec:\n  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}\n  mutations:\n    - patchType: ApplyConfiguration\n      applyConfiguration: {expression: "Object{spec: Object.specs{}}"}\n',
    });
    try {
      const r = await run(['validate', 'bad.yaml'], { cwd: dir });
      expect(r.code).not.toBe(0);
      expect(r.stdout + r.stderr).toContain('bad.yaml:8');
      expect(r.stdout + r.stderr).toContain('unexpected type name "Object.specs", expected "Object.spec"');
    } finally {
      cleanup();
    }
  });
});
