import { describe, expect, it } from 'vitest';
import { runSuites, SuiteError } from '@verdict/testing';
import { parseKyvernoTest } from '@verdict/testing/kubernetes';
import { tempTree } from './helpers.js';

/** Pods may not run as the `default` service account's namespace `blocked`; the image needs a tag; skipped for label `skip: "yes"`. */
const POLICY = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: tagged-images}
spec:
  validationActions: [Audit]
  matchConstraints:
    resourceRules: [{apiGroups: [''], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}]
    namespaceSelector: {matchExpressions: [{key: tier, operator: NotIn, values: [system]}]}
  matchConditions:
  - name: not-skipped
    expression: "!has(object.metadata.labels) || !('skip' in object.metadata.labels)"
  validations:
  - expression: "object.spec.containers.all(c, c.image.contains(':'))"
    message: an image tag is required
`;

const OPERATIONS = `apiVersion: policies.kyverno.io/v1
kind: NamespacedValidatingPolicy
metadata: {name: no-updates, namespace: team-a}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [''], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}]
  validations:
  - expression: "request.operation != 'UPDATE' || request.userInfo.username == 'admin'"
    messageExpression: "'updates by ' + request.userInfo.username + ' are not allowed'"
`;

const pod = (name: string, image: string, extra = '') => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${extra.includes('ns:') ? extra.split('ns:')[1] : 'default'}${extra.includes('skip') ? ', labels: {skip: "yes"}' : ''}}
spec: {containers: [{name: app, image: ${image}}]}
`;

function setup(test: string, files: Record<string, string> = {}) {
  const tree = tempTree({
    'policy.yaml': POLICY,
    'operations.yaml': OPERATIONS,
    'resources.yaml': [pod('tagged', 'nginx:1.27'), pod('untagged', 'nginx'), pod('skipped', 'nginx', 'skip'), pod('system', 'nginx', 'ns:kube-system'), pod('mine', 'nginx:1', 'ns:team-a')].join('---\n'),
    'kyverno-test.yaml': `apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: t}\n${test}`,
    ...files,
  });
  const run = async () => {
    try {
      const report = await runSuites(['kyverno-test.yaml'], { cwd: tree.dir });
      const suite = report.suites[0]!;
      return { report, error: suite.error ?? [], cases: suite.cases.map((c) => `${c.status}: ${c.name}${c.status === 'passed' ? '' : ` (${c.checks[0]?.message ?? c.error})`}`) };
    } finally {
      tree.cleanup();
    }
  };
  return { run };
}

describe('Kyverno CLI tests in verdict test', () => {
  it('runs one case per policy result and resource, with pass, fail and skip (a false matchCondition)', async () => {
    const { cases } = await setup(`policies: [policy.yaml]
resources: [resources.yaml]
results:
- {policy: tagged-images, resources: [tagged], kind: Pod, result: pass, isValidatingPolicy: true}
- {policy: tagged-images, resources: [untagged], kind: Pod, result: fail, isValidatingPolicy: true}
- {policy: tagged-images, resources: [skipped], kind: Pod, result: skip, isValidatingPolicy: true}
`).run();
    expect(cases).toEqual(['passed: tagged-images › Pod/default/tagged → pass', 'passed: tagged-images › Pod/default/untagged → fail', 'passed: tagged-images › Pod/default/skipped → skip']);
  });

  it('fails a case whose result differs, with the policy\'s message, and one naming a resource the test lacks', async () => {
    const { cases, report } = await setup(`policies: [policy.yaml]
resources: [resources.yaml]
results:
- {policy: tagged-images, resources: [untagged, ghost], kind: Pod, result: pass}
`).run();
    expect(cases).toEqual([
      'failed: tagged-images › ghost → pass (expected the policy\'s result to be pass, but it was not found: no resource "ghost" in the test\'s resources)',
      'failed: tagged-images › Pod/default/untagged → pass (expected the policy\'s result to be pass, but it was fail: an image tag is required)',
    ]);
    expect(report.failed).toBe(2);
  });

  it('counts a resource the policy\'s selectors exclude as a pass, as kyverno test does, with namespace labels from the values file', async () => {
    const { cases } = await setup(`policies: [policy.yaml]
resources: [resources.yaml]
variables: values.yaml
results:
- {policy: tagged-images, resources: [system], kind: Pod, result: pass}
`, { 'values.yaml': 'apiVersion: cli.kyverno.io/v1alpha1\nkind: Values\nnamespaceSelector:\n- {name: kube-system, labels: {tier: system}}\n' }).run();
    expect(cases).toEqual(['passed: tagged-images › Pod/kube-system/system → pass']);
  });

  it('reviews as the operation and the user the test asks for, and names a NamespacedValidatingPolicy with its namespace', async () => {
    const { cases } = await setup(`policies: [operations.yaml]
resources: [resources.yaml]
userinfo: user.yaml
results:
- {policy: team-a/no-updates, resources: [mine], kind: Pod, result: pass}
- {policy: team-a/no-updates, resources: [mine], kind: Pod, result: fail, operation: UPDATE}
`, { 'user.yaml': 'apiVersion: cli.kyverno.io/v1alpha1\nkind: UserInfo\nuserInfo: {username: bob}\n' }).run();
    expect(cases).toEqual(['passed: team-a/no-updates › Pod/team-a/mine → pass', 'passed: team-a/no-updates › Pod/team-a/mine → fail (UPDATE)']);
  });

  it('reports a test whose policies need the cluster as a suite in error, with the reason', async () => {
    const { error, report } = await setup(`policies: [lookup.yaml]
resources: [resources.yaml]
results: [{policy: lookup, resources: [tagged], kind: Pod, result: pass}]
`, { 'lookup.yaml': POLICY.replace('tagged-images', 'lookup').replace(`"object.spec.containers.all(c, c.image.contains(':'))"`, '"resource.Get(\'v1\', \'configmaps\', \'default\', \'x\') != null"') }).run();
    expect(error.join('\n')).toMatch(/^policies failed to load:\n.*\/spec\/validations\/0\/expression: invalid CEL expression: Kyverno's resource library \(resource.Get, resource.List, resource.Post\) reads the cluster: verdict evaluates without access to a cluster or the network/);
    expect(report.suites[0]!.status).toBe('error');
  });
});

describe('reading Kyverno CLI test files', () => {
  it('refuses what verdict cannot run, with the reason and the line', () => {
    const text = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [p.yaml]
resources: [r.yaml]
exceptions: [e.yaml]
results:
- {policy: p, resources: [r], result: pass, generatedResource: generated.yaml}
- {policy: p, resources: [r], result: maybe}
`;
    let error: unknown;
    try {
      parseKyvernoTest(text, { file: 'kyverno-test.yaml', dir: '.' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SuiteError);
    expect((error as SuiteError).problems.map((p) => `${p.line}: ${p.path}: ${p.message}`)).toEqual([
      '6: /exceptions: exceptions: PolicyExceptions are not supported yet',
      '8: /results/0/generatedResource: generatedResource: verdict runs Kyverno tests of ValidatingPolicy, MutatingPolicy and their namespaced kinds only',
      '9: /results/1/result: result must be one of pass, fail, skip, error, warn (got "maybe")',
    ]);
  });

  it('resolves paths against the test file and keeps the values and the default name', () => {
    const test = parseKyvernoTest('apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\npolicies: [../p.yaml]\nresources: [r.yaml]\nvalues: {globalValues: {request.operation: UPDATE}}\nresults: []\n', { file: 'dir/kyverno-test.yaml', dir: '/repo/dir' });
    expect(test).toMatchObject({ name: 'dir/kyverno-test.yaml', policies: ['/repo/p.yaml'], resources: ['/repo/dir/r.yaml'], values: { globalValues: { 'request.operation': 'UPDATE' } } });
  });
});
