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

/** Runs `verdict ...args` in a temporary folder holding `files`. */
async function inTree(files: Record<string, string>, args: readonly string[]) {
  const { dir, cleanup } = tempTree(files);
  try {
    return await verdict(args, { cwd: dir });
  } finally {
    cleanup();
  }
}

/** Runs `verdict ...args` in a temporary folder with the policy, the Deployment and the Kyverno test. */
function setup(args: readonly string[]) {
  return inTree({ 'policy.yaml': POLICY, 'deployment.yaml': DEPLOYMENT, '.kyverno-test/kyverno-test.yaml': TEST }, args);
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

describe('verdict test on kyverno/policies\' ValidatingPolicies and MutatingPolicies', () => {
  it('passes every upstream Kyverno CLI test as it is (the rows kyverno test drops are skipped)', async () => {
    const run = await verdict(['test', '-q', 'test/fixtures/kyverno-policies']);
    // 59 ValidatingPolicy results, 72 MutatingPolicy results; 3 rows name a patched resource their file does not hold.
    expect(run.stdout.trim().split('\n').at(-1)).toBe('131 passed, 0 failed, 3 skipped');
    expect(run.code).toBe(0);
  });
});

const MUTATING = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: always-pull}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [''], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, imagePullPolicy: "Always"})}}
`;

const MUTATING_TEST = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: always-pull}
policies: [../policy.yaml]
resources: [../deployment.yaml]
results:
- {policy: always-pull, kind: Deployment, resources: [web], result: pass, isMutatingPolicy: true, patchedResources: patched.yaml}
`;

const PATCHED = (policy: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec: {template: {metadata: {name: web-pod}, spec: {containers: [{name: app, image: 'nginx:latest', imagePullPolicy: ${policy}}]}}}
`;

/** Runs `verdict ...args` with the MutatingPolicy, the Deployment, a mutating config and the Kyverno test expecting `patched`. */
function mutatingSetup(args: readonly string[], patched = PATCHED('Always')) {
  return inTree({
    'policy.yaml': MUTATING, 'deployment.yaml': DEPLOYMENT, 'verdict.config.yaml': 'kubernetes: {mutating: true}\n',
    '.kyverno-test/kyverno-test.yaml': MUTATING_TEST, '.kyverno-test/patched.yaml': patched,
  }, args);
}

describe('Kyverno MutatingPolicies in the CLI', () => {
  it('verdict test compares the patched resource, and shows a diff when it differs', async () => {
    const passing = await mutatingSetup(['test', '.kyverno-test/kyverno-test.yaml']);
    expect(passing.stdout).toContain('✓ always-pull › Deployment/default/web → pass');
    expect(passing.code).toBe(0);
    const failing = await mutatingSetup(['test', '.kyverno-test/kyverno-test.yaml'], PATCHED('IfNotPresent'));
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain('the patched resource did not match the one in .kyverno-test/patched.yaml');
    expect(failing.stdout).toMatch(/-\s+imagePullPolicy: IfNotPresent\n\s+\+\s+imagePullPolicy: Always/);
  });

  it('verdict audit and explain (with kubernetes: {mutating: true}) show what the policy would change', async () => {
    const audit = await mutatingSetup(['audit', '-p', 'policy.yaml', '-c', 'verdict.config.yaml', 'deployment.yaml', '-o', 'json', '--no-defaults']);
    const [object] = JSON.parse(audit.stdout).objects;
    expect(object.results).toMatchObject([{ kind: 'MutatingPolicy', policy: 'always-pull/autogen-defaults', status: 'warn', messages: ['mutation would apply: add /spec/template/spec/containers/0/imagePullPolicy'] }]);
    // With the API server's defaults (audit's default), a :latest image already has imagePullPolicy Always: nothing to change.
    const defaulted = await mutatingSetup(['audit', '-p', 'policy.yaml', '-c', 'verdict.config.yaml', 'deployment.yaml', '-o', 'json']);
    expect(JSON.parse(defaulted.stdout).objects[0].results).toMatchObject([{ kind: 'MutatingPolicy', policy: 'always-pull/autogen-defaults', status: 'pass', messages: [] }]);
    const explain = await mutatingSetup(['explain', '-p', 'policy.yaml', '-c', 'verdict.config.yaml', '-i', 'deployment.yaml', '--no-defaults']);
    expect(explain.stdout).toContain('MutatingPolicy/always-pull/autogen-defaults (policy.yaml:1): matched');
    expect(explain.stdout).toMatch(/✓ mutate mutations\[0\] \(policy\.yaml:\d+ \/spec\/mutations\/0\)/);
    expect(explain.stdout).toContain('patch: add /spec/template/spec/containers/0/imagePullPolicy = Always');
  });
});
