import { describe, expect, it } from 'vitest';
import { tempTree, verdict } from './helpers.js';

const POLICY = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: disallow-latest-tag}
spec:
  validationActions: [Deny]
  matchConstraints:
    resourceRules: [{apiGroups: [''], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}]
  validations:
  - expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))"
    messageExpression: "'images must not use latest: ' + object.metadata.name"
`;

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec: {template: {metadata: {name: web-pod}, spec: {containers: [{name: app, image: nginx:latest}]}}}
`;

const TEST = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: latest}
policies: [../policy.yaml]
resources: [../deployment.yaml]
results:
- {policy: disallow-latest-tag, kind: Deployment, resources: [web], result: fail, isValidatingPolicy: true}
`;

/** Runs `verdict ...args` in a temporary folder with the policy, the Deployment and the Kyverno test. */
async function setup(args: readonly string[]) {
  const { dir, cleanup } = tempTree({ 'policy.yaml': POLICY, 'deployment.yaml': DEPLOYMENT, '.kyverno-test/kyverno-test.yaml': TEST });
  try {
    return await verdict(args, { cwd: dir });
  } finally {
    cleanup();
  }
}

describe('verdict with Kyverno ValidatingPolicies', () => {
  it('validates a ValidatingPolicy, with its autogen variants as policies', async () => {
    const run = await setup(['validate', 'policy.yaml']);
    expect(run.stdout).toBe('✓ 1 document, 3 policies (kubernetes): valid\n');
    expect(run.code).toBe(0);
  });

  it('denies a Deployment through autogen, in Kyverno\'s words, with the message read from the pod template', async () => {
    const run = await setup(['eval', '-p', 'policy.yaml', '-i', 'deployment.yaml']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).response.status).toEqual({ status: 'Failure', message: 'Policy disallow-latest-tag failed: images must not use latest: web-pod' });
  });

  it('finds and runs a Kyverno CLI test in a .kyverno-test folder', async () => {
    const run = await setup(['test', '.']);
    expect(run.stdout).toContain('✓ disallow-latest-tag › Deployment/default/web → fail');
    expect(run.stdout.trim().split('\n').at(-1)).toBe('1 passed, 0 failed');
    expect(run.code).toBe(0);
  });

  it('reports ValidatingPolicies in verdict audit, the autogen variant under the policy\'s name', async () => {
    const run = await setup(['audit', '-p', 'policy.yaml', 'deployment.yaml', '-o', 'json']);
    expect(run.code).toBe(1);
    const [object] = JSON.parse(run.stdout).objects;
    expect(object).toMatchObject({ kind: 'Deployment', name: 'web', allowed: false });
    expect(object.results).toMatchObject([{ kind: 'ValidatingPolicy', policy: 'disallow-latest-tag/autogen-defaults', status: 'fail', messages: ['images must not use latest: web-pod'] }]);
  });
});

describe('verdict test on kyverno/policies\' best-practices ValidatingPolicies', () => {
  it('passes every upstream Kyverno CLI test as it is', async () => {
    const run = await verdict(['test', '-q', 'test/fixtures/kyverno-policies']);
    expect(run.stdout.trim().split('\n').at(-1)).toBe('59 passed, 0 failed');
    expect(run.code).toBe(0);
  });
});
