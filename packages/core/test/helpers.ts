/** Shared fixtures for core tests: small documents built fresh for each test. */
import { compilePolicies, parsePolicyDocuments, PolicyLoadError, type CompileOptions, type PolicySet, type Problem } from '@verdict/core';
import { expect } from 'vitest';

export const MEMORY_TEMPLATE = `
apiVersion: verdict.dev/v1
kind: PolicyTemplate
metadata: {name: k8smemorylimits}
spec:
  kind: K8sMemoryLimits
  parametersSchema: {type: object, properties: {limit: {type: string}}, required: [limit]}
  validate:
    - name: container-memory-limit
      forEach: {var: object.spec.containers}
      rule: {and: [{"!!": {var: element.resources.limits.memory}},
                   {"<=": [{quantity: {var: element.resources.limits.memory}}, {quantity: {var: parameters.limit}}]}]}
      message: "container {{element.name}} memory limit must be at most {{parameters.limit}}"
`;

/** Seed 003's final memory constraint, written with core selectors over `namespaceLabels`. */
export const MEMORY_CONSTRAINT = `
kind: K8sMemoryLimits
metadata: {name: memory-limit-enforcement}
spec:
  match:
    labels: {path: namespaceLabels, matchExpressions: [{key: field.cattle.io/projectId, operator: NotIn, values: [system]}]}
  parameterSelection:
    - match: {labels: {path: namespaceLabels, matchLabels: {field.cattle.io/projectId: 32g-team}}}
      parameters: {limit: 32Gi}
    - match: {labels: {path: namespaceLabels, matchLabels: {field.cattle.io/projectId: 64g-team}}}
      parameters: {limit: 64Gi}
    - parameters: {limit: 16Gi}
`;

export function load(yaml: string, options?: CompileOptions): PolicySet {
  return compilePolicies(parsePolicyDocuments(yaml, { source: 'test.yaml' }), options);
}

/** The problems a load raises (fails the test when it loads). */
export function problemsOf(fn: () => unknown): Problem[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyLoadError);
    return [...(error as PolicyLoadError).problems];
  }
  expect.unreachable('expected a PolicyLoadError');
  return [];
}

export function loadProblems(yaml: string, options?: CompileOptions): Problem[] {
  return problemsOf(() => load(yaml, options));
}

export function pod(containers: Array<{ name: string; memory?: string; image?: string }>, meta: Record<string, unknown> = {}) {
  return {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', ...meta },
    spec: {
      containers: containers.map((c) => ({
        name: c.name, image: c.image ?? 'internal.example.com/app:1',
        ...(c.memory ? { resources: { limits: { memory: c.memory } } } : {}),
      })),
    },
  };
}
