import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { policyReportValidators, run, sarifValidator, type JsonReport } from './audit-helpers.js';

describe('verdict audit with a Kyverno ValidatingPolicy', () => {
  const audit = (format: string) => run(['audit', '-p', 'validating-policy/policy.yaml', 'validating-policy/manifests.yaml', '-o', format]);

  it('reports the policy for Pods and its autogen rule for the Deployment\'s Pod template', async () => {
    const r = await audit('json');
    const report = JSON.parse(r.stdout) as JsonReport;
    const findings = report.objects.flatMap((o) => o.results.map((x) => [`${o.kind} ${o.name}`, x.kind, x.policy, x.status]));
    expect(findings).toEqual([
      ['Pod anonymous', 'ValidatingPolicy', 'require-owner', 'fail'],
      ['Pod owned', 'ValidatingPolicy', 'require-owner', 'pass'],
      ['Deployment web', 'ValidatingPolicy', 'require-owner/autogen-defaults', 'fail'],
    ]);
    expect(r.code).toBe(1);
  });

  it('describes the policy and its autogen rules as SARIF rules with the policy\'s description, and the log validates', async () => {
    const log = JSON.parse((await audit('sarif')).stdout) as { runs: Array<{ tool: { driver: { rules: Array<{ id: string; shortDescription: { text: string } }> } }; results: Array<{ ruleId: string; ruleIndex: number }> }> };
    const validate = sarifValidator();
    expect(validate(log), JSON.stringify(validate.errors)).toBe(true);
    const rules = log.runs[0]!.tool.driver.rules;
    const described = Object.fromEntries(rules.map((x) => [x.id, x.shortDescription.text]));
    expect(described['ValidatingPolicy/require-owner']).toBe('Every Pod names its owner in the owner label.');
    expect(described['ValidatingPolicy/require-owner/autogen-defaults']).toBe('Every Pod names its owner in the owner label.');
    expect(log.runs[0]!.results.map((x) => rules[x.ruleIndex]!.id)).toEqual(['ValidatingPolicy/require-owner', 'ValidatingPolicy/require-owner/autogen-defaults']);
  });

  it('writes a PolicyReport that validates, with the ValidatingPolicy as category', async () => {
    const reports = parseAllDocuments((await audit('policyreport')).stdout).map((d) => d.toJS() as { kind: 'PolicyReport' | 'ClusterPolicyReport'; summary: object; results: Array<{ category: string }> });
    const validators = policyReportValidators();
    expect(reports.map((x) => x.kind)).toEqual(['PolicyReport']);
    expect(validators.PolicyReport(reports[0]), JSON.stringify(validators.PolicyReport.errors)).toBe(true);
    expect(reports[0]!.summary).toEqual({ pass: 1, fail: 2, warn: 0, error: 0, skip: 0 });
    expect(new Set(reports[0]!.results.map((x) => x.category))).toEqual(new Set(['ValidatingPolicy']));
  });
});
