import { describe, expect, it } from 'vitest';
import { formatCaseFailure, runSuites, SuiteError } from '@verdict/testing';
import { loadGatorSuite, parseGatorSuite, runGatorSuite } from '@verdict/testing/kubernetes';
import { tempTree } from './helpers.js';

/** A ConstraintTemplate with a CEL block: objects must carry the labels in the parameters. */
const TEMPLATE = `
apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata: {name: k8slabels}
spec:
  crd:
    spec:
      names: {kind: K8sLabels}
      validation: {openAPIV3Schema: {type: object, properties: {labels: {type: array, items: {type: string}}}}}
  targets:
  - target: admission.k8s.gatekeeper.sh
    code:
    - engine: K8sNativeValidation
      source:
        validations:
        - expression: 'variables.params.labels.all(l, has(variables.anyObject.metadata.labels) && l in variables.anyObject.metadata.labels)'
          messageExpression: '"missing labels: " + variables.params.labels.filter(l, !has(variables.anyObject.metadata.labels) || !(l in variables.anyObject.metadata.labels)).join(", ")'
        - expression: '!has(variables.anyObject.metadata.labels) || !("forbidden" in variables.anyObject.metadata.labels)'
          message: forbidden label
`;

const CONSTRAINT = `
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: K8sLabels
metadata: {name: owner-and-team}
spec:
  match: {kinds: [{apiGroups: [""], kinds: [Pod]}]}
  parameters: {labels: [owner, team]}
`;

const pod = (labels: string) => `{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: default, labels: ${labels}}, spec: {containers: []}}`;

/** upstream's samples wrap UPDATEs in a v1beta1 AdmissionReview without uid, kind or resource. */
const UPDATE = `
kind: AdmissionReview
apiVersion: admission.k8s.io/v1beta1
request:
  operation: "UPDATE"
  object: ${pod('{owner: me}')}
`;

const SUITE = `
kind: Suite
apiVersion: test.gatekeeper.sh/v1alpha1
metadata: {name: labels}
tests:
- name: owner-and-team
  template: template.yaml
  constraint: constraint.yaml
  cases:
  - name: labelled
    object: ok.yaml
    assertions:
    - violations: no
  - name: unlabelled
    object: bare.yaml
    assertions:
    - violations: yes
    - violations: 1
      message: "missing labels: owner, team"
    - violations: 0
      message: forbidden
  - name: both-fail
    object: both.yaml
    assertions:
    - violations: 2
  - name: update-review
    object: update.yaml
    assertions:
    - violations: 1
      message: "team$"
- name: refused-parameters
  template: template.yaml
  constraint: bad-constraint.yaml
  invalid: true
`;

function setup(suite = SUITE) {
  return tempTree({
    'suite.yaml': suite,
    'template.yaml': TEMPLATE,
    'constraint.yaml': CONSTRAINT,
    'bad-constraint.yaml': CONSTRAINT.replace('labels: [owner, team]', 'labels: owner'),
    'ok.yaml': pod('{owner: me, team: a}'),
    'bare.yaml': pod('{}'),
    'both.yaml': pod('{forbidden: "yes"}'),
    'update.yaml': UPDATE,
  });
}

describe('gator suites', () => {
  it('run as they are through runSuites, one result per test, found in a directory as suite.yaml', async () => {
    const { dir, cleanup } = setup();
    try {
      const report = await runSuites([dir]);
      expect(report.suites.map((s) => [s.name, s.status])).toEqual([['labels › owner-and-team', 'passed'], ['labels › refused-parameters', 'passed']]);
      expect(report.suites[0]!.cases.map((c) => c.status)).toEqual(['passed', 'passed', 'passed', 'passed']);
      expect(report).toMatchObject({ passed: 5, failed: 0 });
    } finally {
      cleanup();
    }
  });

  it('report a failing assertion with the messages gator would show', async () => {
    const { dir, cleanup } = setup(SUITE.replace('    - violations: no', '    - violations: yes'));
    try {
      const report = await runSuites([`${dir}/suite.yaml`]);
      const failed = report.suites[0]!.cases[0]!;
      expect(failed.status).toBe('failed');
      expect(formatCaseFailure(failed)).toContain('expected at least one violation, but found 0');
    } finally {
      cleanup();
    }
  });

  it('fail an invalid: true test whose constraint loads', async () => {
    const { dir, cleanup } = setup(SUITE.replace('bad-constraint.yaml', 'constraint.yaml'));
    try {
      const suites = await runGatorSuite(loadGatorSuite(`${dir}/suite.yaml`));
      expect(suites[1]!.cases[0]).toMatchObject({ status: 'failed', error: expect.stringContaining('invalid: true') });
    } finally {
      cleanup();
    }
  });

  it('parse from text, with paths relative to the directory given and yes/no read as gator reads them', () => {
    const suite = parseGatorSuite(SUITE, { file: 'suite.yaml', dir: '/suites/labels' });
    expect(suite.tests[0]).toMatchObject({ name: 'owner-and-team', template: '/suites/labels/template.yaml', invalid: false });
    expect(suite.tests[0]!.cases[1]!.assertions.map((a) => a.violations)).toEqual(['yes', 1, 0]);
    expect(suite.tests[1]).toMatchObject({ invalid: true, cases: [] });
  });

  it('refuse a suite whose assertions say something gator would not read', () => {
    const { dir, cleanup } = setup(SUITE.replace('    - violations: no', '    - violations: maybe').replace('template: template.yaml', 'template: /abs/template.yaml'));
    try {
      expect(() => loadGatorSuite(`${dir}/suite.yaml`)).toThrow(SuiteError);
      try {
        loadGatorSuite(`${dir}/suite.yaml`);
      } catch (error) {
        expect((error as SuiteError).problems.map((p) => p.path)).toEqual(['/tests/0/template', '/tests/0/cases/0/assertions/0/violations']);
      }
    } finally {
      cleanup();
    }
  });

  it('report an ExpansionTemplate test as an error instead of running it wrongly', async () => {
    const { dir, cleanup } = setup(SUITE.replace('  constraint: constraint.yaml\n', '  constraint: constraint.yaml\n  expansion: expansion.yaml\n'));
    try {
      const [first] = await runGatorSuite(loadGatorSuite(`${dir}/suite.yaml`));
      expect(first).toMatchObject({ status: 'error', error: [expect.stringContaining('ExpansionTemplates are not supported')] });
    } finally {
      cleanup();
    }
  });
});
