import { describe, expect, it } from 'vitest';
import { run, sarifValidator, type JsonReport } from './audit-helpers.js';
import { tempTree } from './helpers.js';

const audit = async (args: readonly string[], options: Parameters<typeof run>[1] = {}) => {
  const r = await run(['audit', ...args], options);
  return { ...r, json: () => JSON.parse(r.stdout) as JsonReport & { assumedNamespaces: string[] } };
};

// A ValidatingAdmissionPolicy bound with a namespaceSelector, as most real bindings are (kube-system excluded).
const VAP = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-limit}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  validations:
    - expression: object.spec.replicas <= 100
      message: at most 100 replicas
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-limit}
spec:
  policyName: replica-limit
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}, {key: tier, operator: NotIn, values: [system]}]
`;

const deployment = (name: string, namespace?: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}${namespace ? `, namespace: ${namespace}` : ''}}
spec:
  replicas: 3
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: app, image: nginx:1.27}]}
`;

describe('namespaces the cluster guarantees', () => {
  function setup(manifests: string, extra: Record<string, string> = {}) {
    return tempTree({ 'policy.yaml': VAP, 'm.yaml': manifests, ...extra });
  }

  it('assumes a namespace without a Namespace document exists with its name label, and says so', async () => {
    const { dir, cleanup } = setup(`${deployment('frontend')}---\n${deployment('api', 'shop')}---\n${deployment('dns', 'kube-system')}`);
    try {
      const r = await audit(['-p', 'policy.yaml', 'm.yaml', '-o', 'json'], { cwd: dir });
      const report = r.json();
      expect(report.objects.map((o) => [o.namespace, o.allowed, o.results.map((x) => x.status)])).toEqual([
        ['default', true, ['pass']],
        ['shop', true, ['pass']],
        // kube-system is assumed too, and its name label makes the binding's selector leave it out.
        ['kube-system', true, []],
      ]);
      expect(report.assumedNamespaces).toEqual(['default', 'kube-system', 'shop']);
      const table = await audit(['-p', 'policy.yaml', 'm.yaml', '-o', 'table'], { cwd: dir });
      expect(table.stdout).toContain('no Namespace document): 3 namespaces: default, kube-system, shop; --strict-namespaces');
      const sarif = await audit(['-p', 'policy.yaml', 'm.yaml', '-o', 'sarif'], { cwd: dir });
      const log = JSON.parse(sarif.stdout) as { runs: Array<{ invocations: Array<{ toolExecutionNotifications?: Array<{ properties: unknown }> }> }> };
      expect(log.runs[0]!.invocations[0]!.toolExecutionNotifications?.[0]?.properties).toEqual({ assumedNamespaces: ['default', 'kube-system', 'shop'] });
      expect(sarifValidator()(log)).toBe(true);
    } finally {
      cleanup();
    }
  });

  it('lets labels of a Namespace document or of --config win over the assumption', async () => {
    const config = 'kubernetes:\n  namespaces:\n    shop: {tier: system}\n';
    const ns = 'apiVersion: v1\nkind: Namespace\nmetadata: {name: default, labels: {tier: system}}\n';
    const { dir, cleanup } = setup(`${ns}---\n${deployment('frontend')}---\n${deployment('api', 'shop')}---\n${deployment('web', 'web')}`, { 'config.yaml': config });
    try {
      const report = (await audit(['-p', 'policy.yaml', 'm.yaml', '-c', 'config.yaml', '-o', 'json'], { cwd: dir })).json();
      // tier=system (from the document, from the config) leaves default and shop out; web is assumed and checked.
      expect(report.objects.filter((o) => o.kind === 'Deployment').map((o) => [o.namespace, o.results.length])).toEqual([['default', 0], ['shop', 0], ['web', 1]]);
      expect(report.assumedNamespaces).toEqual(['web']);
    } finally {
      cleanup();
    }
  });

  it('with --strict-namespaces, treats namespaces nothing defines as unknown, as a cluster without them does', async () => {
    const { dir, cleanup } = setup(deployment('frontend'));
    try {
      const r = await audit(['-p', 'policy.yaml', 'm.yaml', '--strict-namespaces', '-o', 'json'], { cwd: dir });
      const report = r.json();
      expect(r.code).toBe(1);
      expect(report.assumedNamespaces).toEqual([]);
      expect(report.objects[0]).toMatchObject({ allowed: false, results: [{ status: 'error', messages: [expect.stringContaining('namespace "default" not found')] }] });
    } finally {
      cleanup();
    }
  });
});

describe('objects as the API server defaults them before admission', () => {
  const unreplicated = deployment('frontend').replace('  replicas: 3\n', '');

  it('audit applies the defaults of built-in kinds (a Deployment without replicas has 1), unless --no-defaults', async () => {
    const { dir, cleanup } = tempTree({ 'policy.yaml': VAP, 'm.yaml': unreplicated });
    try {
      const defaulted = (await audit(['-p', 'policy.yaml', 'm.yaml', '-o', 'json'], { cwd: dir })).json();
      expect(defaulted.objects[0]).toMatchObject({ allowed: true, results: [{ status: 'pass' }] });
      const raw = await audit(['-p', 'policy.yaml', 'm.yaml', '--no-defaults', '-o', 'json'], { cwd: dir });
      expect(raw.code).toBe(1);
      expect(raw.json().objects[0]).toMatchObject({ allowed: false, results: [{ status: 'error', messages: [expect.stringContaining('no such key: replicas')] }] });
    } finally {
      cleanup();
    }
  });

  it('eval applies them to a bare object, unless --no-defaults', async () => {
    const { dir, cleanup } = tempTree({ 'policy.yaml': VAP, 'd.yaml': unreplicated });
    try {
      expect((await run(['eval', '-p', 'policy.yaml', '-i', 'd.yaml', '--namespace-labels', 'tier=app'], { cwd: dir })).code).toBe(0);
      const raw = await run(['eval', '-p', 'policy.yaml', '-i', 'd.yaml', '--namespace-labels', 'tier=app', '--no-defaults'], { cwd: dir });
      expect(raw.code).toBe(1);
      expect(raw.stdout).toContain('no such key: replicas');
    } finally {
      cleanup();
    }
  });
});
