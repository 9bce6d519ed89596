/** Policies and inputs shared by the tests: seed 003's memory limits, plus a mutating and a warning policy. */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { compilePolicies, parsePolicyDocuments, type PolicySet } from '@verdict/core';

export const MEMORY_POLICIES = `
apiVersion: verdict.dev/v1
kind: PolicyTemplate
metadata: {name: k8smemorylimits}
spec:
  kind: K8sMemoryLimits
  parametersSchema: {type: object, properties: {limit: {type: string}}, required: [limit]}
  validate:
    - name: container-memory-limit
      forEach: {var: object.spec.containers}
      rule: {"<=": [{quantity: {var: element.resources.limits.memory}}, {quantity: {var: parameters.limit}}]}
      message: "container {{element.name}} memory limit {{element.resources.limits.memory}} must be at most {{parameters.limit}}"
---
apiVersion: verdict.dev/v1
kind: K8sMemoryLimits
metadata: {name: memory-limit-enforcement}
spec:
  match:
    labels: {path: namespaceLabels, matchExpressions: [{key: team, operator: NotIn, values: [system]}]}
  parameterSelection:
    - name: big-team
      match: {labels: {path: namespaceLabels, matchLabels: {team: big}}}
      parameters: {limit: 32Gi}
    - name: everyone-else
      parameters: {limit: 16Gi}
---
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: team-label}
spec:
  enforcementAction: warn
  validate:
    - name: has-team
      rule: {"!!": {var: object.metadata.labels.team}}
      message: "pod {{object.metadata.name}} has no team label"
---
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: default-owner}
spec:
  mutate:
    - name: default-owner
      when: {"!": {var: object.metadata.labels.owner}}
      patch: [{op: add, path: /object/metadata/labels/owner, value: platform}]
`;

export function memoryPolicies(): PolicySet {
  return compilePolicies(parsePolicyDocuments(MEMORY_POLICIES, { source: 'memory.yaml' }));
}

export function pod(memory: string, labels?: Record<string, string>) {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: 'web', namespace: 'apps', ...(labels ? { labels } : {}) },
    spec: { containers: [{ name: 'app', image: 'nginx', resources: { limits: { memory } } }] },
  };
}

/** A temporary directory with `files` (path → text); `cleanup()` removes it. */
export function tempTree(files: Record<string, string>): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'verdict-testing-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The message vitest would print for a failing assertion. */
export function failure(assertion: () => void): string {
  try {
    assertion();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the assertion passed');
}

/** A CI policy that rejects production deploys from an unprotected ref (a dry-run level's usual subject). */
export const PROTECTED_DEPLOYS = `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: protected-deploys}
spec:
  match: {variables: "CI_ENVIRONMENT_NAME=production"}
  validate: [{name: protected, rule: {"==": [{var: refProtected}, true]}, message: "deploys must run on a protected ref"}]
`;
