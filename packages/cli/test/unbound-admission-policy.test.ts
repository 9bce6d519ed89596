import { describe, expect, it } from 'vitest';
import { tempTree, verdict } from './helpers.js';

// A ValidatingAdmissionPolicy whose binding names another policy (a typo): the policy loads and does nothing.
const POLICIES = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-limit}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  validations:
  - expression: "object.spec.replicas <= 5"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: bound}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  validations:
  - expression: "true"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: bound-binding}
spec: {policyName: bound, validationActions: [Deny]}
`;

const SUITE = `apiVersion: verdict.dev/v1
kind: Suite
metadata: {name: replicas}
policies: [policies.yaml]
cases:
  - name: ten replicas
    input: {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: default}, spec: {replicas: 10}}
    expect: {allowed: true}
`;

describe('admission policies no binding names', () => {
  it('are a lint finding of verdict validate, at the policy, naming the binding kind', async () => {
    const tree = tempTree({ 'policies.yaml': POLICIES });
    try {
      const run = await verdict(['validate', 'policies.yaml'], { cwd: tree.dir });
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('! policies.yaml:3:18 (ValidatingAdmissionPolicy/replica-limit) at /metadata/name: ValidatingAdmissionPolicy "replica-limit" is named by no ValidatingAdmissionPolicyBinding (spec.policyName): the API server never evaluates it, so it admits everything; add a binding [UNBOUND_POLICY]');
      expect(run.stdout).not.toContain('ValidatingAdmissionPolicy/bound)');
      const json = JSON.parse((await verdict(['validate', 'policies.yaml', '-o', 'json'], { cwd: tree.dir })).stdout) as { lint: Array<{ code: string; policy: string }> };
      expect(json.lint.map((f) => [f.code, f.policy])).toEqual([['UNBOUND_POLICY', 'replica-limit']]);
    } finally {
      tree.cleanup();
    }
  });

  it('are named by verdict test, under their suite', async () => {
    const tree = tempTree({ 'policies.yaml': POLICIES, 'replicas.verdict.yaml': SUITE });
    try {
      const run = await verdict(['test', '.'], { cwd: tree.dir });
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/⚠ policies\.yaml:3:18: ValidatingAdmissionPolicy "replica-limit" is named by no ValidatingAdmissionPolicyBinding/);
    } finally {
      tree.cleanup();
    }
  });
});
