// The README's webhook policies: a template and a constraint with a default and an override.
export const POLICIES = `
apiVersion: verdict.dev/v1
kind: PolicyTemplate
metadata: {name: k8smemorylimits}
spec:
  kind: K8sMemoryLimits
  parametersSchema: {type: object, properties: {limit: {type: string}}}
  validate:
    - name: container-memory-limit
      forEach: {var: object.spec.containers}
      rule: {"<=": [{quantity: {var: element.resources.limits.memory}}, {quantity: {var: parameters.limit}}]}
      message: "container {{element.name}}: set resources.limits.memory to at most {{parameters.limit}}"
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: K8sMemoryLimits
metadata: {name: memory-limit-enforcement}
spec:
  match:
    kinds: [{apiGroups: [""], kinds: [Pod]}]
  parameterSelection:
    - match: {namespaceSelector: {matchLabels: {team: ml}}}
      parameters: {limit: 64Gi}
    - parameters: {limit: 16Gi}
`;

export const pod = (namespace: string, memory: string) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'app-0', namespace },
  spec: { containers: [{ name: 'app', image: 'app:1', resources: { limits: { memory } } }] },
});
