import { describe, expect, it } from 'vitest';
import { tempTree, verdict } from './helpers.js';

const POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: image-env.example.com}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  variables:
  - name: environment
    expression: "'environment' in namespaceObject.metadata.labels ? namespaceObject.metadata.labels['environment'] : 'prod'"
  validations:
  - expression: "object.spec.template.spec.containers.all(c, c.image.startsWith(variables.environment + '.'))"
    messageExpression: "'only ' + variables.environment + ' images are allowed in namespace ' + namespaceObject.metadata.name"
    reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: image-env-binding}
spec: {policyName: image-env.example.com, validationActions: [Deny]}
`;

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec: {template: {spec: {containers: [{name: app, image: dev.example.com/web}]}}}
`;

const TEMPLATE = `apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata: {name: k8sowner}
spec:
  crd: {spec: {names: {kind: K8sOwner}}}
  targets:
  - target: admission.k8s.gatekeeper.sh
    code:
    - engine: K8sNativeValidation
      source:
        validations:
        - expression: "has(variables.anyObject.metadata.labels) && 'owner' in variables.anyObject.metadata.labels"
          message: "an owner label is required"
`;

const SUITE = `kind: Suite
apiVersion: test.gatekeeper.sh/v1alpha1
metadata: {name: owner}
tests:
- name: owner-required
  template: template.yaml
  constraint: constraint.yaml
  cases:
  - name: has-owner
    object: owned.yaml
    assertions: [{violations: no}]
  - name: no-owner
    object: unowned.yaml
    assertions: [{violations: 1, message: "owner label"}]
`;

function setup() {
  return tempTree({
    'vap.yaml': POLICY,
    'deployment.yaml': DEPLOYMENT,
    'gator/suite.yaml': SUITE,
    'gator/template.yaml': TEMPLATE,
    'gator/constraint.yaml': 'apiVersion: constraints.gatekeeper.sh/v1beta1\nkind: K8sOwner\nmetadata: {name: owner}\nspec: {match: {kinds: [{apiGroups: [""], kinds: [Pod]}]}}\n',
    'gator/owned.yaml': '{apiVersion: v1, kind: Pod, metadata: {name: a, labels: {owner: me}}}',
    'gator/unowned.yaml': '{apiVersion: v1, kind: Pod, metadata: {name: b}}',
  });
}

describe('verdict with ValidatingAdmissionPolicies and gator suites', () => {
  it('validates a ValidatingAdmissionPolicy with its binding', async () => {
    const { dir, cleanup } = setup();
    try {
      const run = await verdict(['validate', 'vap.yaml'], { cwd: dir });
      expect(run.stdout).toBe('✓ 2 documents, 1 policy (kubernetes): valid\n');
      expect(run.code).toBe(0);
    } finally {
      cleanup();
    }
  });

  it('evaluates a Deployment against it and answers as the API server would', async () => {
    const { dir, cleanup } = setup();
    try {
      const run = await verdict(['eval', '-p', 'vap.yaml', '-i', 'deployment.yaml', '--namespace-labels', 'environment=prod'], { cwd: dir });
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout).response.status).toEqual({
        status: 'Failure', code: 403, reason: 'Forbidden',
        message: "ValidatingAdmissionPolicy 'image-env.example.com' with binding 'image-env-binding' denied request: only prod images are allowed in namespace default",
      });
    } finally {
      cleanup();
    }
  });

  it('explains each validation and each variable', async () => {
    const { dir, cleanup } = setup();
    try {
      const run = await verdict(['explain', '-p', 'vap.yaml', '-i', 'deployment.yaml', '--namespace-labels', 'environment=dev'], { cwd: dir });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('ValidatingAdmissionPolicyBinding/image-env-binding [validationActions: Deny] (vap.yaml:15): matched');
      expect(run.stdout).toContain('variables.environment = dev');
      expect(run.stdout).toContain('✓ validations[0]');
    } finally {
      cleanup();
    }
  });

  it('runs a gator suite as it is', async () => {
    const { dir, cleanup } = setup();
    try {
      const run = await verdict(['test', 'gator/suite.yaml'], { cwd: dir });
      expect(run.stdout).toContain('owner › owner-required');
      expect(run.stdout.trim().split('\n').at(-1)).toBe('2 passed, 0 failed');
      expect(run.code).toBe(0);
    } finally {
      cleanup();
    }
  });
});

describe('verdict test on the gatekeeper-library CEL policies', () => {
  it('passes every gator suite of the sixteen upstream CEL templates', async () => {
    const run = await verdict(['test', '-q', 'test/fixtures/gatekeeper-library-cel']);
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(/^\d+ passed, 0 failed$/);
    expect(run.code).toBe(0);
  });
});
