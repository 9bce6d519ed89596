import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempTree, verdict } from './helpers.js';

/** The Kubernetes documentation's parameterised policy, its parameter a ConfigMap; one binding for test namespaces, one for the others. */
const VAP = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicalimit.example.com}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  validations:
  - expression: "object.spec.replicas <= int(params.data.maxReplicas)"
    messageExpression: "'replicas must be at most ' + params.data.maxReplicas"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicalimit-test}
spec:
  policyName: replicalimit.example.com
  validationActions: [Deny]
  paramRef: {name: replicas-test, namespace: default, parameterNotFoundAction: Deny}
  matchResources:
    namespaceSelector:
      matchLabels: {environment: test}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicalimit-other}
spec:
  policyName: replicalimit.example.com
  validationActions: [Warn]
  paramRef: {name: replicas-other, namespace: default, parameterNotFoundAction: Deny}
  matchResources:
    namespaceSelector:
      matchExpressions: [{key: environment, operator: NotIn, values: [test]}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: replicas-test, namespace: default}
data: {maxReplicas: "3"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: replicas-other, namespace: default}
data: {maxReplicas: "100"}
`;

const MAP = `apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: sidecar.example.com}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  matchConditions:
  - name: no-proxy-yet
    expression: '!has(object.spec.initContainers)'
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{op: "add", path: "/spec/initContainers", value: [Object.spec.initContainers{name: "proxy", image: params.data.image}]}]'
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: sidecar}
spec:
  policyName: sidecar.example.com
  paramRef: {name: proxy, namespace: mesh-system, parameterNotFoundAction: Deny}
  matchResources:
    namespaceSelector: {matchLabels: {mesh: enabled}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: proxy, namespace: mesh-system}
data: {image: mesh/proxy:v1}
`;

/** gatekeeper-library's requiredlabels (CEL), as ported under test/fixtures with its licence. */
const REQUIRED_LABELS = join(ROOT, 'test/fixtures/gatekeeper-library-cel/requiredlabels');
const gatekeeper = (path: string) => readFileSync(join(REQUIRED_LABELS, path), 'utf8');

const KINITIRAS = `apiVersion: policy.kcloudlabs.io/v1alpha1
kind: OverridePolicy
metadata: {name: owned-by, namespace: default}
spec:
  resourceSelectors:
  - apiVersion: v1
    kind: Pod
    labelSelector: {matchLabels: {owned: "yes"}}
  overrideRules:
  - targetOperations: [CREATE]
    overriders:
      template: {type: annotations, operation: replace, path: owned-by, value: {string: platform}}
---
apiVersion: policy.kcloudlabs.io/v1alpha1
kind: ClusterValidatePolicy
metadata: {name: no-latest}
spec:
  resourceSelectors: [{apiVersion: v1, kind: Pod}]
  validateRules:
  - targetOperations: [CREATE]
    template:
      type: condition
      condition: {cond: In, message: "images tagged latest are not allowed", dataRef: {from: current, path: /spec/containers/0/image}, value: {stringSlice: ["nginx:latest"]}}
`;

const deployment = (replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec: {replicas: ${replicas}, template: {spec: {containers: [{name: app, image: web}]}}}
`;
const pod = (labels: string, image = 'web:1') => `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, labels: {${labels}}}
spec: {containers: [{name: app, image: "${image}"}]}
`;

function setup() {
  return tempTree({
    'vap.yaml': VAP,
    // Every action of a binding's list applies: Deny rejects, Warn warns, Audit writes the audit annotation.
    'vap-audit.yaml': VAP.replace('validationActions: [Deny]', 'validationActions: [Deny, Audit]').replace('validationActions: [Warn]', 'validationActions: [Warn, Audit]'),
    // A messageExpression that fails (no such key): the API server uses the message instead.
    'vap-message.yaml': VAP.replace("messageExpression: \"'replicas must be at most ' + params.data.maxReplicas\"", "messageExpression: \"'replicas must be at most ' + params.data.missing\"\n    message: replicas over the limit"),
    'vap-allow.yaml': VAP.replace('name: replicas-test, namespace: default, parameterNotFoundAction: Deny', 'name: absent, namespace: default, parameterNotFoundAction: Allow'),
    'map.yaml': MAP,
    'gatekeeper/template.yaml': gatekeeper('template.yaml'),
    'gatekeeper/constraint.yaml': gatekeeper('samples/all-must-have-owner/constraint.yaml'),
    'namespace.yaml': gatekeeper('samples/all-must-have-owner/example_disallowed.yaml'),
    'kinitiras.yaml': KINITIRAS,
    'deployment.yaml': deployment(5),
    'pod.yaml': pod(''),
    'proxied-pod.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: default}\nspec: {initContainers: [{name: proxy, image: p}], containers: [{name: app, image: web}]}\n',
    'owned-pod.yaml': pod('owned: "yes"', 'nginx:latest'),
    'mutating.yaml': 'kubernetes: {mutating: true}\n',
  });
}

/** `verdict explain` in a fresh tree; stdout. */
async function explain(args: readonly string[]): Promise<string> {
  const { dir, cleanup } = setup();
  try {
    return (await verdict(['explain', ...args], { cwd: dir })).stdout;
  } finally {
    cleanup();
  }
}

describe('verdict explain speaks the words of translated documents', () => {
  it('shows a ValidatingAdmissionPolicy binding with its matchResources path, its validationActions and its ConfigMap as params', async () => {
    const out = await explain(['-p', 'vap.yaml', '-i', 'deployment.yaml', '--namespace-labels', 'environment=test']);
    // The other binding's namespaceSelector, where its author wrote it (not the generated /spec/match/all/1/…).
    expect(out).toContain('ValidatingAdmissionPolicyBinding/replicalimit-other [validationActions: Warn] (vap.yaml:23): not matched: requires namespaceSelector: environment!=test (vap.yaml:32 /spec/matchResources/namespaceSelector)');
    expect(out).toContain('ValidatingAdmissionPolicyBinding/replicalimit-test [validationActions: Deny] (vap.yaml:12): matched');
    expect(out).toContain('from ValidatingAdmissionPolicy/replicalimit.example.com (vap.yaml)');
    // What CEL sees as params: the ConfigMap, named, with its data.
    expect(out).toContain('params: ConfigMap default/replicas-test data: {maxReplicas: "3"}');
    expect(out).toContain('✗ validations[0] (vap.yaml:9 /spec/validations/0/expression)');
    expect(out).toContain('replicas must be at most 3');
    for (const word of ['/spec/match/all', 'parameterSelection', 'parameters:', 'parameter set', '[deny]']) expect(out).not.toContain(word);
  });

  it('gives the same trace as JSON with -o json, in the binding\'s words', async () => {
    const out = JSON.parse(await explain(['-p', 'vap.yaml', '-i', 'deployment.yaml', '--namespace-labels', 'environment=test', '-o', 'json'])) as {
      allowed: boolean; trace: Array<Record<string, unknown>>;
    };
    expect(out.allowed).toBe(false);
    const [other, test] = out.trace;
    expect(other).toMatchObject({
      kind: 'ValidatingAdmissionPolicyBinding', policy: 'replicalimit-other', matched: false, validationActions: ['Warn'],
      mismatch: { at: '/spec/matchResources/namespaceSelector', source: { document: 2, kind: 'ValidatingAdmissionPolicyBinding', name: 'replicalimit-other', file: 'vap.yaml', line: 32 } },
    });
    expect(test).toMatchObject({
      policy: 'replicalimit-test', matched: true, validationActions: ['Deny'],
      params: { kind: 'ConfigMap', metadata: { name: 'replicas-test', namespace: 'default' }, data: { maxReplicas: '3' } },
      rules: [{ rule: 'validations[0]', result: 'fail', source: { kind: 'ValidatingAdmissionPolicy', name: 'replicalimit.example.com', path: '/spec/validations/0/expression', line: 9 } }],
    });
    for (const key of ['parameters', 'parameterSet', 'selection', 'enforcementAction']) expect(test).not.toHaveProperty(key);
  });

  it("shows every action of a binding's validationActions, in text and JSON, as the API server applies them all", async () => {
    const args = ['-p', 'vap-audit.yaml', '-i', 'deployment.yaml', '--namespace-labels', 'environment=test'];
    const text = await explain(args);
    expect(text).toContain('ValidatingAdmissionPolicyBinding/replicalimit-test [validationActions: Deny, Audit] (vap-audit.yaml:12): matched');
    expect(text).toContain('ValidatingAdmissionPolicyBinding/replicalimit-other [validationActions: Warn, Audit] (vap-audit.yaml:23): not matched');
    const json = JSON.parse(await explain([...args, '-o', 'json'])) as { trace: Array<Record<string, unknown>> };
    expect(json.trace.map((t) => [t['policy'], t['validationActions']])).toEqual([['replicalimit-other', ['Warn', 'Audit']], ['replicalimit-test', ['Deny', 'Audit']]]);
    for (const t of json.trace) expect(t).not.toHaveProperty('actions');
    // Warn and Audit: matched in a namespace that is not a test one, the failure warns and is audited.
    const warned = await explain([...args.slice(0, 4), '--namespace-labels', 'environment=prod']);
    expect(warned).toContain('ValidatingAdmissionPolicyBinding/replicalimit-other [validationActions: Warn, Audit] (vap-audit.yaml:23): matched');
  });

  it('points a rule at its messageExpression when that failed, says why, and answers with the message', async () => {
    const out = await explain(['-p', 'vap-message.yaml', '-i', 'deployment.yaml', '--namespace-labels', 'environment=test']);
    expect(out).toMatch(/✗ validations\[0\]: messageExpression failed: .*missing.* \(vap-message\.yaml:10 \/spec\/validations\/0\/messageExpression\)/);
    expect(out).toContain('replicas over the limit');
    const json = JSON.parse(await explain(['-p', 'vap-message.yaml', '-i', 'deployment.yaml', '--namespace-labels', 'environment=test', '-o', 'json'])) as { trace: Array<{ policy: string; rules: Array<Record<string, unknown>> }> };
    const rule = json.trace.find((t) => t.policy === 'replicalimit-test')!.rules[0]!;
    expect(rule).toMatchObject({ result: 'fail', at: '/messageExpression', source: { path: '/spec/validations/0/messageExpression', line: 10 } });
    expect(rule['message']).toMatch(/^messageExpression failed: .*missing/);
  });

  it('says when a binding found no parameter object and parameterNotFoundAction Allow skipped it', async () => {
    const out = await explain(['-p', 'vap-allow.yaml', '-i', 'deployment.yaml', '--namespace-labels', 'environment=test']);
    expect(out).toContain('ValidatingAdmissionPolicyBinding/replicalimit-test [validationActions: Deny] (vap-allow.yaml:12): matched\n    params: no parameter object found for its paramRef: not evaluated (parameterNotFoundAction: Allow)');
  });

  it("names the policy's matchConstraints, in the policy's document, when they rule a binding out", async () => {
    const out = await explain(['-p', 'vap.yaml', '-i', 'pod.yaml', '--namespace-labels', 'environment=test']);
    expect(out).toContain('ValidatingAdmissionPolicyBinding/replicalimit-test [validationActions: Deny] (vap.yaml:12): not matched: requires resourceRules: CREATE,UPDATE apps/v1/deployments (vap.yaml:7 ValidatingAdmissionPolicy/replicalimit.example.com /spec/matchConstraints/resourceRules)');
  });

  it('shows a MutatingAdmissionPolicy binding with its params, its mutations and its matchConditions where they were written', async () => {
    const applied = await explain(['-p', 'map.yaml', '-i', 'pod.yaml', '-c', 'mutating.yaml', '--namespace-labels', 'mesh=enabled']);
    expect(applied).toContain('MutatingAdmissionPolicyBinding/sidecar (map.yaml:16): matched');
    expect(applied).toContain('params: ConfigMap mesh-system/proxy data: {image: mesh/proxy:v1}');
    expect(applied).toContain('✓ mutate mutations[0] (map.yaml:12 /spec/mutations/0)');
    expect(applied).toContain('patch: add /spec/initContainers = [{name: proxy, image: mesh/proxy:v1}]');
    const elsewhere = await explain(['-p', 'map.yaml', '-i', 'pod.yaml', '-c', 'mutating.yaml', '--namespace-labels', 'mesh=disabled']);
    expect(elsewhere).toContain('MutatingAdmissionPolicyBinding/sidecar (map.yaml:16): not matched: requires namespaceSelector: mesh=enabled (map.yaml:23 /spec/matchResources/namespaceSelector)');
    const proxied = await explain(['-p', 'map.yaml', '-i', 'proxied-pod.yaml', '-c', 'mutating.yaml', '--namespace-labels', 'mesh=enabled']);
    expect(proxied).toContain('MutatingAdmissionPolicyBinding/sidecar (map.yaml:16): not matched: requires matchCondition "no-proxy-yet": !has(object.spec.initContainers) (map.yaml:9 MutatingAdmissionPolicy/sidecar.example.com /spec/matchConditions/0)');
    for (const out of [applied, elsewhere, proxied]) for (const word of ['/spec/match/all', 'parameter set', '[deny]']) expect(out).not.toContain(word);
  });

  it("points a Gatekeeper constraint's CEL validations at its ConstraintTemplate", async () => {
    const out = await explain(['-p', 'gatekeeper', '-i', 'namespace.yaml']);
    expect(out).toContain('K8sRequiredLabels/all-must-have-owner [deny]: matched');
    expect(out).toContain('from ConstraintTemplate/k8srequiredlabels (gatekeeper/template.yaml)');
    expect(out).toContain('✗ validations[0] (gatekeeper/template.yaml:45 /spec/targets/0/code/0/source/validations/0/expression)');
    expect(out).toContain('✗ validations[1] (gatekeeper/template.yaml:47 /spec/targets/0/code/0/source/validations/1/expression)');
  });

  it("shows kinitiras policies by their resourceSelectors, overriders and validateRules", async () => {
    const owned = await explain(['-p', 'kinitiras.yaml', '-i', 'owned-pod.yaml', '-c', 'mutating.yaml']);
    expect(owned).toContain('OverridePolicy/default/owned-by (kinitiras.yaml:10 /spec/overrideRules/0): matched');
    expect(owned).toContain('selected by resourceSelectors[0]');
    expect(owned).toContain('✓ mutate overrideRules[0].template (kinitiras.yaml:12 /spec/overrideRules/0/overriders/template)');
    expect(owned).toContain('ClusterValidatePolicy/no-latest (kinitiras.yaml:20 /spec/validateRules): matched');
    expect(owned).toContain('✗ validateRules[0] (kinitiras.yaml:20 /spec/validateRules/0)');
    const other = await explain(['-p', 'kinitiras.yaml', '-i', 'pod.yaml', '-c', 'mutating.yaml']);
    expect(other).toContain('OverridePolicy/default/owned-by (kinitiras.yaml:10 /spec/overrideRules/0): not matched: no selector matched');
    expect(other).toContain('resourceSelectors[0] did not match: requires apiVersion v1, kind Pod, labelSelector {"matchLabels":{"owned":"yes"}} (kinitiras.yaml:6 /spec/resourceSelectors/0)');
    for (const out of [owned, other]) for (const word of ['parameterSelection', 'parameters:', '[deny]', 'entry 0']) expect(out).not.toContain(word);
  });
});
