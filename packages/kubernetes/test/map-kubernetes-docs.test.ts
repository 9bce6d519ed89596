/**
 * The examples of the kubernetes.io page "Mutating Admission Policy"
 * (kubernetes/website content/en/examples/mutatingadmissionpolicy, content
 * CC BY 4.0), loaded as written, with the answers the API server gives.
 */
import { describe, expect, it } from 'vitest';
import { webhookFor } from './helpers.js';

const JSON_PATCH_POLICY = `apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata:
  name: "sidecar-policy.example.com"
spec:
  paramKind:
    kind: Sidecar
    apiVersion: mutations.example.com/v1
  matchConstraints:
    resourceRules:
    - apiGroups:   [""]
      apiVersions: ["v1"]
      operations:  ["CREATE"]
      resources:   ["pods"]
  matchConditions:
    - name: does-not-already-have-sidecar
      expression: "!object.spec.initContainers.exists(ic, ic.name == \\"mesh-proxy\\")"
  failurePolicy: Fail
  reinvocationPolicy: IfNeeded
  mutations:
    - patchType: "JSONPatch"
      jsonPatch:
        expression: >
          [
            JSONPatch{
              op: "add", path: "/spec/initContainers/-",
              value: Object.spec.initContainers{
                name: "mesh-proxy",
                image: "mesh-proxy/v1.0.0",
                restartPolicy: "Always"
              }
            }
          ]
`;

const APPLY_CONFIGURATION_POLICY = `apiVersion: admissionregistration.k8s.io/v1alpha1
kind: MutatingAdmissionPolicy
metadata:
  name: "sidecar-policy.example.com"
spec:
  paramKind:
    kind: Sidecar
    apiVersion: mutations.example.com/v1
  matchConstraints:
    resourceRules:
    - apiGroups:   [""]
      apiVersions: ["v1"]
      operations:  ["CREATE"]
      resources:   ["pods"]
  matchConditions:
    - name: does-not-already-have-sidecar
      expression: "!object.spec.initContainers.exists(ic, ic.name == \\"mesh-proxy\\")"
  failurePolicy: Fail
  reinvocationPolicy: IfNeeded
  mutations:
    - patchType: "ApplyConfiguration"
      applyConfiguration:
        expression: >
          Object{
            spec: Object.spec{
              initContainers: [
                Object.spec.initContainers{
                  name: "mesh-proxy",
                  image: "mesh/proxy:v1.0.0",
                  args: ["proxy", "sidecar"],
                  restartPolicy: "Always"
                }
              ]
            }
          }
`;

const BINDING = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: "sidecar-policy.example.com"
spec:
  matchResources:
    namespaceSelector: {}
  policyName: "sidecar-policy.example.com"`;

const pod = (initContainers?: unknown[]) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' },
  spec: { containers: [{ name: 'web', image: 'nginx' }], ...(initContainers ? { initContainers } : {}) },
});

function setup(policy: string) {
  return webhookFor({ policies: `${policy}---\n${BINDING}`, mutating: true, namespaceLabels: () => ({}) });
}

describe('the Kubernetes documentation: MutatingAdmissionPolicy', () => {
  it('adds the mesh-proxy init container with the JSONPatch example', async () => {
    const { run } = setup(JSON_PATCH_POLICY);
    const answer = await run(pod([]));
    expect(answer.response.allowed).toBe(true);
    expect(answer.patch).toEqual([{ op: 'add', path: '/spec/initContainers/-', value: { name: 'mesh-proxy', image: 'mesh-proxy/v1.0.0', restartPolicy: 'Always' } }]);
    expect((answer.patched as ReturnType<typeof pod>).spec.initContainers).toEqual([{ name: 'mesh-proxy', image: 'mesh-proxy/v1.0.0', restartPolicy: 'Always' }]);
  });

  it('leaves a pod that already has the sidecar alone (the matchCondition is false)', async () => {
    const { run } = setup(JSON_PATCH_POLICY);
    const answer = await run(pod([{ name: 'mesh-proxy', image: 'mesh-proxy/v0.9.0' }]));
    expect(answer.response).toMatchObject({ allowed: true });
    expect(answer.response.patch).toBeUndefined();
  });

  it('denies a pod without initContainers: the matchCondition reads a missing field and failurePolicy is Fail', async () => {
    const { run } = setup(JSON_PATCH_POLICY);
    const { response } = await run(pod());
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toMatch(/^policy 'sidecar-policy\.example\.com' with binding 'sidecar-policy\.example\.com' denied request: matchCondition "does-not-already-have-sidecar": .*initContainers/);
  });

  it('refuses the ApplyConfiguration example as the API server does: args is an atomic list', async () => {
    const { run } = setup(APPLY_CONFIGURATION_POLICY);
    const { response } = await run(pod([]));
    expect(response).toMatchObject({ allowed: false, status: { code: 403, reason: 'Invalid' } });
    expect(response.status?.message).toBe("policy 'sidecar-policy.example.com' with binding 'sidecar-policy.example.com' denied request: error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.initContainers[0].args");
  });
});
