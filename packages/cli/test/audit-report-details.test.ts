import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempTree } from './helpers.js';
import { run, type JsonReport } from './audit-helpers.js';

const audit = async (args: readonly string[], cwd: string) => {
  const r = await run(['audit', ...args], { cwd });
  return { ...r, json: () => JSON.parse(r.stdout) as JsonReport };
};

const VAP = (limit: number, action = 'Deny') => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas}
spec:
  failurePolicy: Fail
  matchConstraints: {resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]}
  validations: [{expression: "object.spec.replicas <= ${limit}", message: "at most ${limit} replicas"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicas}
spec: {policyName: replicas, validationActions: [${action}]}
`;

const DEPLOYMENT = 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec: {replicas: 3, template: {spec: {containers: [{name: a, image: a:1}]}}}\n';
const KUSTOMIZATION = 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [web.yaml]\n';

describe('audit report details', () => {
  it('keeps the kind of a skipped document, and --stats counts what the summary counts', async () => {
    const { dir, cleanup } = tempTree({ 'p.yaml': VAP(5), 'web.yaml': DEPLOYMENT, 'kustomization.yaml': KUSTOMIZATION });
    try {
      const r = await audit(['-p', 'p.yaml', 'web.yaml', 'kustomization.yaml', '-o', 'json', '--stats'], dir);
      const report = r.json();
      expect(report.objects.find((o) => o.skipped !== undefined)).toMatchObject({ kind: 'Kustomization', apiVersion: 'kustomize.config.k8s.io/v1beta1' });
      const stats = JSON.parse(/verdict audit stats: (\{.*\})/.exec(r.stderr)![1]!) as { objects: number; skipped: number };
      expect(stats).toMatchObject({ objects: report.summary.objects, skipped: report.summary.skipped });
      expect([stats.objects, stats.skipped]).toEqual([1, 1]);
    } finally {
      cleanup();
    }
  });

  it('shows an error that denies with the deny glyph, and one that warns with the warning glyph', async () => {
    const broken = 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec: {template: {spec: {containers: []}}}\n';
    const { dir, cleanup } = tempTree({ 'deny.yaml': VAP(5), 'warn.yaml': VAP(5, 'Warn'), 'web.yaml': broken });
    try {
      const denied = await audit(['-p', 'deny.yaml', 'web.yaml', '--no-defaults', '-o', 'table'], dir);
      expect(denied.stdout).toMatch(/✗ error \[replicas\] .*no such key: replicas/);
      const warned = await audit(['-p', 'warn.yaml', 'web.yaml', '--no-defaults', '-o', 'table'], dir);
      expect(warned.stdout).toMatch(/! error \[replicas\] .*no such key: replicas/);
      expect(warned.stdout).not.toContain('✗');
    } finally {
      cleanup();
    }
  });

  it('gives SARIF results of the same object in two files their own fingerprints, and unreadable manifests their column', async () => {
    const { dir, cleanup } = tempTree({ 'p.yaml': VAP(1), 'a/web.yaml': DEPLOYMENT, 'b/web.yaml': DEPLOYMENT, 'bad.yaml': 'kind: [A\n' });
    try {
      const r = await audit(['-p', 'p.yaml', 'a', 'b', 'bad.yaml', '-o', 'sarif'], dir);
      type Result = { ruleId: string; partialFingerprints: Record<string, string>; locations: Array<{ physicalLocation: { region: { startLine: number; startColumn?: number } } }> };
      const results = (JSON.parse(r.stdout) as { runs: Array<{ results: Result[] }> }).runs[0]!.results;
      const denials = results.filter((x) => x.ruleId === 'ValidatingAdmissionPolicyBinding/replicas');
      expect(denials).toHaveLength(2);
      expect(denials[0]!.partialFingerprints).not.toEqual(denials[1]!.partialFingerprints);
      const unreadable = results.find((x) => x.ruleId === 'verdict/unreadable-manifest')!;
      expect(unreadable.locations[0]!.physicalLocation.region).toEqual({ startLine: 2, startColumn: 1 });
    } finally {
      cleanup();
    }
  });

  it('prints no parameterSelection line in diff traces of policies without parameterSelection (a ValidatingAdmissionPolicy)', async () => {
    const { dir, cleanup } = tempTree({ 'base/p.yaml': VAP(5), 'head/p.yaml': VAP(2), 'web.yaml': DEPLOYMENT });
    try {
      const r = await run(['diff', '--base', 'base', '--head', 'head', 'web.yaml', '-o', 'table'], { cwd: dir });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('ValidatingAdmissionPolicyBinding/replicas');
      expect(r.stdout).toContain('[validationActions: Deny] (head/p.yaml:9): matched');
      // The place wraps to the next row of the right-hand column.
      expect(r.stdout).toContain('✗ validations[0] (head/p.yaml:7');
      expect(r.stdout).toContain('/spec/validations/0/expression)');
      expect(r.stdout).not.toContain('parameterSelection');
    } finally {
      cleanup();
    }
  });
});

describe('verdict validate on a gatekeeper-library folder', () => {
  it('recognises the gator suite and the sample objects it reviews, and validates the template and constraint', async () => {
    const r = await run(['validate', join(ROOT, 'examples/gatekeeper-library/allowedrepos'), '-o', 'json'], { cwd: ROOT });
    const report = JSON.parse(r.stdout) as { valid: boolean; skipped: Array<{ source: string; reason: string }> };
    expect(r.code).toBe(0);
    expect(report.valid).toBe(true);
    expect(report.skipped.map((x) => x.reason)).toEqual([
      'gator suite',
      ...Array.from({ length: 5 }, () => 'an object the gator suite examples/gatekeeper-library/allowedrepos/gator-suite.yaml checks'),
    ]);
    expect(report.skipped.map((x) => x.source).filter((x) => x.includes('/samples/')).every((x) => !x.endsWith('constraint.yaml'))).toBe(true);
  });
});
