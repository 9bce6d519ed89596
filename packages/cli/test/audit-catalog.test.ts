import { describe, expect, it } from 'vitest';
import type { PolicyInfo } from '@verdict/core';
import { completeCatalog, policyCatalog } from '../src/commands/audit-catalog.js';
import type { AuditReport } from '../src/commands/audit-results.js';
import { formatSarif } from '../src/commands/audit-sarif.js';

const info = (over: Partial<PolicyInfo>): PolicyInfo => ({
  kind: 'K', name: 'n', order: 0, enforcementAction: 'deny', template: 't', parameterSelection: 0, validate: [], mutate: [], ...over,
});

describe('policyCatalog', () => {
  function setup() {
    // A ValidatingAdmissionPolicy and its binding, as the Kubernetes adapter compiles them (one policy per binding).
    const vap = {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'replicas.example.com', annotations: { description: 'Deployments run at most five replicas.' } },
      spec: { validations: [{ expression: 'object.spec.replicas <= 5', message: 'too many replicas' }] },
    };
    const kyverno = {
      apiVersion: 'policies.kyverno.io/v1alpha1', kind: 'ValidatingPolicy',
      metadata: { name: 'no-host-path', annotations: { 'policies.kyverno.io/description': 'Pods do not mount host paths.' } },
      spec: { validations: [{ expression: 'true' }, { expression: 'false', message: 'hostPath is not allowed' }] },
    };
    const policies = [
      info({ kind: 'ValidatingAdmissionPolicyBinding', name: 'replicas-binding', template: 'replicas.example.com', validate: ['validations[0]'] }),
      info({ kind: 'ValidatingPolicy', name: 'no-host-path', template: 'no-host-path', enforcementAction: 'warn', validate: ['validations[1]'] }),
      // A policy the adapter derived from another (Kyverno's autogen for Pod controllers).
      info({ kind: 'ValidatingPolicy', name: 'no-host-path/autogen-defaults', template: 'x', enforcementAction: 'warn', validate: ['validations[1]'] }),
    ];
    return { catalog: policyCatalog(policies, [vap, kyverno]) };
  }

  it('lists every compiled policy whatever its kind, with its template\'s description and its rules\' messages', () => {
    const { catalog } = setup();
    expect(catalog).toEqual([
      {
        kind: 'ValidatingAdmissionPolicyBinding', name: 'replicas-binding', enforcementAction: 'deny', description: 'Deployments run at most five replicas.',
        rules: [{ name: 'validations[0]', message: 'too many replicas' }],
      },
      {
        kind: 'ValidatingPolicy', name: 'no-host-path', enforcementAction: 'warn', description: 'Pods do not mount host paths.',
        rules: [{ name: 'validations[1]', message: 'hostPath is not allowed' }],
      },
      {
        kind: 'ValidatingPolicy', name: 'no-host-path/autogen-defaults', enforcementAction: 'warn', description: 'Pods do not mount host paths.',
        rules: [{ name: 'validations[1]', message: 'hostPath is not allowed' }],
      },
    ]);
  });

  it('reads a verdict PolicyTemplate\'s description and validate rules for its constraints', () => {
    const template = { kind: 'PolicyTemplate', metadata: { name: 'labels' }, spec: { kind: 'Labels', description: 'Needs labels.', validate: [{ name: 'has', message: 'missing {{label}}' }] } };
    const constraint = { kind: 'Labels', metadata: { name: 'owner' }, spec: {} };
    expect(policyCatalog([info({ kind: 'Labels', name: 'owner', template: 'labels', validate: ['has'] })], [template, constraint])).toEqual([
      { kind: 'Labels', name: 'owner', enforcementAction: 'deny', description: 'Needs labels.', rules: [{ name: 'has', message: 'missing {{label}}' }] },
    ]);
  });
});

describe('completeCatalog', () => {
  it('adds the policies and rules results name that the catalog lacks, and leaves the catalog as it was', () => {
    const catalog = [{ kind: 'A', name: 'a', enforcementAction: 'deny' as const, rules: [{ name: 'r1' }] }];
    const results = [
      { kind: 'A', policy: 'a', rule: 'r2', enforcementAction: 'deny' as const },
      { kind: 'B', policy: 'b', rule: 'r', enforcementAction: 'warn' as const },
      { kind: '', policy: '(input)', rule: '', enforcementAction: 'deny' as const },
    ];
    expect(completeCatalog(catalog, results)).toEqual([
      { kind: 'A', name: 'a', enforcementAction: 'deny', rules: [{ name: 'r1' }, { name: 'r2' }] },
      { kind: 'B', name: 'b', enforcementAction: 'warn', rules: [{ name: 'r' }] },
    ]);
    expect(catalog[0]!.rules).toEqual([{ name: 'r1' }]);
  });
});

describe('SARIF rules of any policy kind', () => {
  it('describes a ValidatingAdmissionPolicy binding as a rule and points its results at it', () => {
    const result = { kind: 'ValidatingAdmissionPolicyBinding', policy: 'replicas-binding', rule: 'validations[0]', enforcementAction: 'deny' as const, status: 'fail' as const, messages: ['too many replicas'] };
    const report: AuditReport = {
      objects: [{ file: 'd.yaml', line: 3, adapter: 'kubernetes', apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web', allowed: false, results: [result] }],
      problems: [], files: 1, adapter: 'kubernetes', policies: completeCatalog([], [result]),
    };
    const log = JSON.parse(formatSarif(report, { version: '0.0.0', cwd: '/' })) as { runs: Array<{ tool: { driver: { rules: Array<{ id: string }> } }; results: Array<{ ruleId: string; ruleIndex: number; level: string }> }> };
    const run = log.runs[0]!;
    expect(run.results).toEqual([expect.objectContaining({ ruleId: 'ValidatingAdmissionPolicyBinding/replicas-binding', level: 'error' })]);
    expect(run.tool.driver.rules[run.results[0]!.ruleIndex]!.id).toBe('ValidatingAdmissionPolicyBinding/replicas-binding');
  });
});
