/** Builders for MutatingAdmissionPolicy tests: documents as users write them. */
const API = 'admissionregistration.k8s.io/v1beta1';

/** Pods and Deployments, CREATE and UPDATE. */
export const PODS_AND_DEPLOYMENTS = {
  resourceRules: [
    { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] },
    { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] },
  ],
};

/** A MutatingAdmissionPolicy whose mutations are JSONPatch expressions (strings) or `{ApplyConfiguration: expression}`. */
export function mutating(name: string, mutations: Array<string | { apply: string }>, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: API, kind: 'MutatingAdmissionPolicy', metadata: { name },
    spec: {
      matchConstraints: PODS_AND_DEPLOYMENTS,
      mutations: mutations.map((m) => (typeof m === 'string'
        ? { patchType: 'JSONPatch', jsonPatch: { expression: m } }
        : { patchType: 'ApplyConfiguration', applyConfiguration: { expression: m.apply } })),
      ...spec,
    },
  };
}

export function mutatingBinding(name: string, policyName: string, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: API, kind: 'MutatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName, ...spec } };
}

/** A policy and its binding, both named `name`. */
export function bound(name: string, mutations: Array<string | { apply: string }>, spec: Record<string, unknown> = {}): Array<Record<string, unknown>> {
  return [mutating(name, mutations, spec), mutatingBinding(name, name)];
}
