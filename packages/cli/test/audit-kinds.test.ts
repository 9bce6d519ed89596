import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ROOT } from './helpers.js';
import { policyReportValidators, run, sarifValidator, type JsonReport } from './audit-helpers.js';

/** The ValidatingAdmissionPolicy example: two bindings of a parameterised policy, a Warn/Audit binding and a Gatekeeper CEL template. */
const VAP_POLICIES = join(ROOT, 'examples/validating-admission-policy/policies');

describe('verdict audit with ValidatingAdmissionPolicies and Gatekeeper CEL templates', () => {
  const audit = (format: string) => run(['audit', '-p', VAP_POLICIES, 'vap-manifests', '-o', format]);

  it('decides each object with the bindings that match it, as the API server would', async () => {
    const r = await audit('json');
    const report = JSON.parse(r.stdout) as JsonReport;
    const findings = report.objects.flatMap((o) => o.results.filter((x) => x.status !== 'pass').map((x) => [`${o.namespace}/${o.name}`, x.kind, x.policy, x.status, x.messages[0]]));
    expect(findings).toEqual([
      ['test/web', 'ValidatingAdmissionPolicyBinding', 'replicalimit-binding-test.example.com', 'fail', 'object.spec.replicas must be no greater than 3'],
      // A Warn binding warns: the API server admits with a warning, so the report says warn, not fail.
      ['prod/web', 'ValidatingAdmissionPolicyBinding', 'image-environment-warn', 'warn', 'only prod images are allowed in namespace prod'],
      ['prod/ok', 'K8sRequiredLabelKeys', 'deployment-owner', 'fail', 'missing labels: owner'],
    ]);
    expect(report.objects.map((o) => o.allowed)).toEqual([true, true, false, true, false]);
    expect(r.code).toBe(1);
  });

  it('describes every binding and constraint as a SARIF rule, and the log validates', async () => {
    const log = JSON.parse((await audit('sarif')).stdout) as { runs: Array<{ tool: { driver: { rules: Array<{ id: string }> } }; results: Array<{ ruleId: string; ruleIndex: number }> }> };
    const validate = sarifValidator();
    expect(validate(log), JSON.stringify(validate.errors)).toBe(true);
    const rules = log.runs[0]!.tool.driver.rules.map((x) => x.id);
    expect(rules).toEqual(expect.arrayContaining([
      'K8sRequiredLabelKeys/deployment-owner', 'ValidatingAdmissionPolicyBinding/image-environment-warn',
      'ValidatingAdmissionPolicyBinding/replicalimit-binding-nontest', 'ValidatingAdmissionPolicyBinding/replicalimit-binding-test.example.com',
    ]));
    for (const result of log.runs[0]!.results) expect(rules[result.ruleIndex]).toBe(result.ruleId);
  });

  it('writes PolicyReports that validate, with the binding as the policy and its kind as the category', async () => {
    const reports = parseAllDocuments((await audit('policyreport')).stdout).map((d) => d.toJS() as { kind: 'PolicyReport' | 'ClusterPolicyReport'; results: Array<{ policy: string; category?: string; result: string }> });
    const validators = policyReportValidators();
    for (const report of reports) expect(validators[report.kind](report), JSON.stringify(validators[report.kind].errors)).toBe(true);
    const results = reports.flatMap((x) => x.results);
    expect(results.filter((x) => x.result === 'warn').map((x) => [x.category, x.policy])).toEqual([['ValidatingAdmissionPolicyBinding', 'image-environment-warn']]);
    expect(results.filter((x) => x.result === 'fail').map((x) => [x.category, x.policy])).toEqual([
      ['K8sRequiredLabelKeys', 'deployment-owner'],
      ['ValidatingAdmissionPolicyBinding', 'replicalimit-binding-test.example.com'],
    ]);
  });
});
