import { describe, expect, it } from 'vitest';
import { PolicyLoadError, type Problem } from '@verdict/core';
import { loadKubernetesPolicies } from '@verdict/kubernetes';
import { bound, mutating, mutatingBinding } from './map-helpers.js';

function problemsOf(documents: unknown[]): Array<Pick<Problem, 'path' | 'message'>> {
  try {
    loadKubernetesPolicies(documents as never, { source: 'policies.yaml' });
  } catch (error) {
    if (error instanceof PolicyLoadError) return error.problems.map((p) => ({ path: p.path, message: p.message }));
    throw error;
  }
  throw new Error('expected the policies not to load');
}

function policyWith(mutations: unknown[], spec: Record<string, unknown> = {}): Record<string, unknown> {
  const base = mutating('m.example.com', []);
  return { ...base, spec: { ...(base['spec'] as object), mutations, ...spec } };
}

describe('MutatingAdmissionPolicy documents', () => {
  it('loads v1, v1beta1 and v1alpha1 documents alike', () => {
    for (const version of ['v1', 'v1beta1', 'v1alpha1']) {
      const [policy, binding] = bound('m.example.com', ['[]']).map((d) => ({ ...d, apiVersion: `admissionregistration.k8s.io/${version}` }));
      expect(loadKubernetesPolicies([policy, binding] as never).policies.map((p) => `${p.kind}/${p.name}`)).toEqual(['MutatingAdmissionPolicyBinding/m.example.com']);
    }
  });

  it('checks each mutation: a known patchType, its expression block, and not the other one', () => {
    expect(problemsOf([policyWith([
      { patchType: 'JsonPatch', jsonPatch: { expression: '[]' } },
      { patchType: 'JSONPatch', applyConfiguration: { expression: 'Object{}' } },
      { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' }, jsonPatch: { expression: '[]' } },
      { jsonPatch: { expression: '[]' } },
    ])])).toEqual([
      { path: '/spec/mutations/0/patchType', message: 'patchType must be one of JSONPatch, ApplyConfiguration (got "JsonPatch"); did you mean "JSONPatch"?' },
      { path: '/spec/mutations/1/applyConfiguration', message: 'applyConfiguration must not be set when patchType is JSONPatch' },
      { path: '/spec/mutations/1/jsonPatch', message: 'jsonPatch is required when patchType is JSONPatch' },
      { path: '/spec/mutations/2/jsonPatch', message: 'jsonPatch must not be set when patchType is ApplyConfiguration' },
      { path: '/spec/mutations/3/patchType', message: 'missing required field "patchType" (JSONPatch or ApplyConfiguration)' },
    ]);
  });

  it('refuses an unknown reinvocationPolicy and a JSONPatch field that does not exist, where they are written', () => {
    expect(problemsOf([policyWith([{ patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", pth: "/a"}]' } }], { reinvocationPolicy: 'Always' })])).toEqual([
      { path: '/spec/reinvocationPolicy', message: 'reinvocationPolicy must be one of Never, IfNeeded (got "Always")' },
    ]);
    expect(problemsOf([policyWith([{ patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", pth: "/a"}]' } }])])).toEqual([
      { path: '/spec/mutations/0/jsonPatch/expression', message: 'invalid CEL expression: JSONPatch has no field "pth" (fields: op, path, from, value)' },
    ]);
  });

  it('says when a binding names a policy the set does not define, but not when that policy failed to load', () => {
    expect(problemsOf([mutatingBinding('b', 'missing.example.com')])).toEqual([
      { path: '/spec/policyName', message: 'no MutatingAdmissionPolicy "missing.example.com" in the policy set' },
    ]);
    const broken = problemsOf([policyWith([{ patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{pth: "/a"}]' } }]), mutatingBinding('b', 'm.example.com')]);
    expect(broken.map((p) => p.path)).toEqual(['/spec/mutations/0/jsonPatch/expression']);
  });

  it('reports a CEL syntax error of a mutation at its expression, with line and column of the document', () => {
    const yaml = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: m.example.com}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  mutations:
    - patchType: JSONPatch
      jsonPatch: {expression: "[JSONPatch{op: 'add', path: '/a', value: 1 +}]"}
`;
    try {
      loadKubernetesPolicies(yaml, { source: 'policies.yaml' });
      throw new Error('expected a load error');
    } catch (error) {
      expect((error as PolicyLoadError).problems[0]).toMatchObject({ path: '/spec/mutations/0/jsonPatch/expression', line: 8, code: 'INVALID_RULE' });
    }
  });
});
