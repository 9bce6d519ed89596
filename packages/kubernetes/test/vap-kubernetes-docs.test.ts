/**
 * The examples of the kubernetes.io page "Validating Admission Policy"
 * (kubernetes/website, content CC BY 4.0), loaded as written, with the
 * answers the page shows.
 */
import { describe, expect, it } from 'vitest';
import { createAdmissionWebhook, type AdmissionWebhookOptions } from '@verdict/kubernetes';
import { checked } from './helpers.js';
import { admissionReviewFor } from '@verdict/kubernetes';
import { deployment } from './vap-helpers.js';

const BASIC_POLICY = `---
{
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicy",
  metadata: {
    name: "demo-policy.example.com",
  },
  spec: {
    failurePolicy: "Fail",
    matchConstraints: {
      resourceRules: [{
        apiGroups: [
          "apps",
        ],
        apiVersions: [
          "v1",
        ],
        operations: [
          "CREATE",
          "UPDATE",
        ],
        resources: [
          "deployments",
        ],
      }],
    },
    validations: [{
      expression: "object.spec.replicas <= 5",
    }],
  },
}
`;

const BASIC_BINDING = `---
{
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicyBinding",
  metadata: {
    name: "demo-binding-test.example.com",
  },
  spec: {
    policyName: "demo-policy.example.com",
    validationActions: [
      "Deny",
    ],
    matchResources: {
      namespaceSelector: {
        matchLabels: {
          environment: "test",
        },
      },
    },
  },
}
`;

const PARAM_POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: "replicalimit-policy.example.com"
spec:
  failurePolicy: Fail
  paramKind:
    apiVersion: rules.example.com/v1
    kind: ReplicaLimit
  matchConstraints:
    resourceRules:
    - apiGroups:   ["apps"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["deployments"]
  validations:
    - expression: "object.spec.replicas <= params.maxReplicas"
      reason: Invalid
`;

const PARAM_BINDINGS = `---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: "replicalimit-binding-test.example.com"
spec:
  policyName: "replicalimit-policy.example.com"
  validationActions: [Deny]
  paramRef:
    name: "replica-limit-test.example.com"
    namespace: "default"
    parameterNotFoundAction: Deny
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: test
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: "replicalimit-binding-nontest"
spec:
  policyName: "replicalimit-policy.example.com"
  validationActions: [Deny]
  paramRef:
    name: "replica-limit-prod.example.com"
    namespace: "default"
  matchResources:
    namespaceSelector:
      matchExpressions:
      - key: environment
        operator: NotIn
        values:
        - test
---
apiVersion: rules.example.com/v1
kind: ReplicaLimit
metadata:
  name: "replica-limit-test.example.com"
  namesapce: "default"
maxReplicas: 3
---
{
  apiVersion: "rules.example.com/v1",
  kind: "ReplicaLimit",
  metadata: {
    name: "replica-limit-prod.example.com",
  },
  maxReplicas: 100,
}
`;

const IMAGE_POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: "image-matches-namespace-environment.policy.example.com"
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups:   ["apps"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["deployments"]
  variables:
  - name: environment
    expression: "'environment' in namespaceObject.metadata.labels ? namespaceObject.metadata.labels['environment'] : 'prod'"
  - name: exempt
    expression: "has(object.metadata.labels) && 'exempt' in object.metadata.labels && object.metadata.labels['exempt'] == 'true'"
  - name: containers
    expression: "object.spec.template.spec.containers"
  - name: containersToCheck
    expression: "variables.containers.filter(c, c.image.contains('example.com'))"
  validations:
  - expression: "variables.exempt || variables.containersToCheck.all(c, c.image.startsWith(variables.environment + '.'))"
    messageExpression: "'only ' + variables.environment + ' images are allowed in namespace ' + namespaceObject.metadata.name"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: "demo-binding-test.example.com"
spec:
  policyName: "image-matches-namespace-environment.policy.example.com"
  validationActions: [Deny]
`;

const TYPO_POLICY = `---
{
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicy",
  metadata: {
    name: "deploy-replica-policy.example.com",
  },
  spec: {
    matchConstraints: {
      resourceRules: [{
        apiGroups: [
          "apps",
        ],
        apiVersions: [
          "v1",
        ],
        operations: [
          "CREATE",
          "UPDATE",
        ],
        resources: [
          "deployments",
        ],
      }],
    },
    validations: [{
      expression: "object.replicas > 1", # should be "object.spec.replicas > 1"
      message: "must be replicated",
      reason: "Invalid",
    }],
  },
}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: typo-binding}
spec: {policyName: deploy-replica-policy.example.com, validationActions: [Deny]}
`;

function setup(policies: string, namespaces: Record<string, Record<string, string>>) {
  const webhook = createAdmissionWebhook({ policies, namespaceLabels: (name: string) => namespaces[name] } as AdmissionWebhookOptions);
  return (object: Parameters<typeof admissionReviewFor>[0]) => checked(webhook, admissionReviewFor(object));
}

describe('the Kubernetes documentation examples', () => {
  it('denies too many replicas in a test namespace with the message the page shows', async () => {
    const review = setup(BASIC_POLICY + BASIC_BINDING, { default: { environment: 'test' }, prod: { environment: 'prod' } });
    const { response } = await review(deployment({ name: 'nginx', replicas: 6 }));
    expect(response.status?.message).toBe("ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5");
    expect((await review(deployment({ namespace: 'prod', replicas: 6 }))).response.allowed).toBe(true);
  });

  it('limits replicas to 3 in test namespaces and to 100 elsewhere with two bindings and two ReplicaLimit parameters', async () => {
    const review = setup(PARAM_POLICY + PARAM_BINDINGS, { test: { environment: 'test' }, prod: { environment: 'prod' } });
    expect((await review(deployment({ namespace: 'test', replicas: 4 }))).response.status).toMatchObject({
      code: 422, reason: 'Invalid',
      message: "ValidatingAdmissionPolicy 'replicalimit-policy.example.com' with binding 'replicalimit-binding-test.example.com' denied request: failed expression: object.spec.replicas <= params.maxReplicas",
    });
    expect((await review(deployment({ namespace: 'test', replicas: 3 }))).response.allowed).toBe(true);
    expect((await review(deployment({ namespace: 'prod', replicas: 50 }))).response.allowed).toBe(true);
    expect((await review(deployment({ namespace: 'prod', replicas: 101 }))).response.status?.message).toContain("binding 'replicalimit-binding-nontest' denied request");
  });

  it('checks images against the environment label of the namespace, through variables', async () => {
    const review = setup(IMAGE_POLICY, { default: { environment: 'prod' }, dev: { environment: 'dev' } });
    const { response } = await review(deployment({ name: 'invalid', image: 'dev.example.com/nginx' }));
    expect(response.status?.message).toBe("ValidatingAdmissionPolicy 'image-matches-namespace-environment.policy.example.com' with binding 'demo-binding-test.example.com' denied request: only prod images are allowed in namespace default");
    expect((await review(deployment({ namespace: 'dev', image: 'dev.example.com/nginx' }))).response.allowed).toBe(true);
    expect((await review(deployment({ image: 'dev.example.com/nginx', labels: { exempt: 'true' } }))).response.allowed).toBe(true);
  });

  it('denies under failurePolicy Fail when an expression reads a field that does not exist (the type-checking example)', async () => {
    const { response } = await setup(TYPO_POLICY, {})(deployment());
    expect(response.status?.message).toMatch(/^ValidatingAdmissionPolicy 'deploy-replica-policy.example.com' with binding 'typo-binding' denied request: expression 'object.replicas > 1' resulted in error: /);
  });
});
