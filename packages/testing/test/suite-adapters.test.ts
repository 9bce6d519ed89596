import { describe, expect, it } from 'vitest';
import { formatCaseFailure, runSuites, summaryLine, type SuiteReport } from '@verdict/testing';
import { PROTECTED_DEPLOYS, tempTree } from './helpers.js';

/** Seed 003's memory-limit constraint as Gatekeeper YAML, with a PolicyTemplate for its logic. */
const GATEKEEPER = `
apiVersion: verdict.dev/v1
kind: PolicyTemplate
metadata: {name: k8smemorylimits}
spec:
  kind: K8sMemoryLimits
  parametersSchema: {type: object, properties: {limit: {type: string}}}
  validate:
    - name: limit
      forEach: {var: object.spec.containers}
      rule: {"<=": [{quantity: {var: element.resources.limits.memory}}, {quantity: {var: parameters.limit}}]}
      message: "container {{element.name}} may use at most {{parameters.limit}}"
  mutate:
    - name: owner
      when: {"!": {var: object.metadata.labels.owner}}
      patch: [{op: add, path: /metadata/labels/owner, value: "{{parameters.limit}}-team"}]
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: K8sMemoryLimits
metadata: {name: memory-limit-enforcement}
spec:
  match:
    kinds: [{apiGroups: [""], kinds: [Pod]}]
    namespaceSelector:
      matchExpressions:
        - {key: field.cattle.io/projectId, operator: NotIn, values: [system]}
  parameterSelection:
    - match: {namespaceSelector: {matchLabels: {field.cattle.io/projectId: 32g-team}}}
      parameters: {limit: 32Gi}
    - parameters: {limit: 16Gi}
`;

const POD = (memory: string, namespace = 'web') =>
  `{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: ${namespace}, labels: {owner: me}}, spec: {containers: [{name: app, resources: {limits: {memory: ${memory}}}}]}}`;

const K8S_SUITE = `
apiVersion: verdict.dev/v1
kind: Suite
metadata: {name: seed 003 on the webhook}
policies: [policies.yaml]
kubernetes:
  mutating: true
  namespaces:
    web: {field.cattle.io/projectId: web}
    batch: {field.cattle.io/projectId: 32g-team}
    kube-system: {field.cattle.io/projectId: system}
cases:
  - name: 20Gi in web is denied with Gatekeeper's message form
    input: ${POD('20Gi')}
    expect:
      allowed: false
      status: 403
      messages: ["[memory-limit-enforcement] container app may use at most 16Gi"]
      parameters: {memory-limit-enforcement: {limit: 16Gi}}
  - name: 20Gi in batch is allowed
    input: ${POD('20Gi', 'batch')}
    expect: {allowed: true, parameters: {memory-limit-enforcement: {limit: 32Gi}}, patch: false}
  - name: per-case namespace labels win
    input: ${POD('20Gi', 'web')}
    namespaceLabels: {field.cattle.io/projectId: 32g-team}
    expect: {allowed: true}
  - name: system is not matched
    input: ${POD('200Gi', 'kube-system')}
    expect: {allowed: true, parameters: {memory-limit-enforcement: null}}
  - name: an owner label is added when missing
    input: {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: web}, spec: {containers: []}}
    expect: {allowed: true, patch: [{op: add, path: /metadata/labels/owner, value: 16Gi-team}]}
  - name: an AdmissionReview is taken as it is
    input: review.json
    expect: {allowed: false, messages: [{regex: "at most 16Gi$"}]}
  - name: DELETE is judged on the deleted object, as Gatekeeper's webhook gives it
    input: ${POD('20Gi')}
    operation: DELETE
    expect: {allowed: false, messages: ["[memory-limit-enforcement] container app may use at most 16Gi"]}
`;

const REVIEW = JSON.stringify({
  apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
  request: {
    uid: 'u1', kind: { group: '', version: 'v1', kind: 'Pod' }, resource: { group: '', version: 'v1', resource: 'pods' }, name: 'p', namespace: 'web', operation: 'CREATE',
    userInfo: { username: 'alice' }, object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'web', labels: { owner: 'x' } }, spec: { containers: [{ name: 'app', resources: { limits: { memory: '17Gi' } } }] } },
  },
});

const CI_PROJECT = `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: allow-list}
spec:
  match: {not: {projects: [allowed/*]}}
  validate: [{name: allowed, rule: false, message: "project {{project.path}} may not use these runners"}]
`;
const CI_INSTANCE = `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: zone-a}
spec:
  match: {users: [alice]}
  parameters: {reason: "user is in zone a"}
  mutate: [{name: retag, patch: [{op: add, path: /tags/-, value: zone_a}]}]
`;
const CI_SUITE = `
apiVersion: verdict.dev/v1
kind: Suite
ci:
  chain:
    - {level: project, policies: [project.yaml]}
    - {level: group, name: audit, dryRun: true, policies: [group.yaml]}
    - {level: instance, policies: [instance.yaml]}
cases:
  - name: alice's job is retagged
    input: {id: 1, variables: {CI_PROJECT_PATH: allowed/app, GITLAB_USER_LOGIN: alice}, tags: [docker]}
    expect: {admission: accepted, tags: {add: [zone_a]}, reason: zone a, parameters: {zone-a: {reason: user is in zone a}}, patch: [{path: /tags/-, value: zone_a}], warnings: false}
  - name: a dry-run group level warns what it would reject
    input: {id: 3, variables: {CI_PROJECT_PATH: allowed/app, GITLAB_USER_LOGIN: bob, CI_ENVIRONMENT_NAME: production}, tags: []}
    expect: {admission: accepted, warnings: ["dry run (audit): would reject: deploys must run on a protected ref"], patch: false}
  - name: other projects are rejected
    input: [{id: 2, variables: {CI_PROJECT_PATH: other/app, GITLAB_USER_LOGIN: bob}, tags: []}]
    expect: {allowed: false, reason: other/app may not use}
`;

const FIAT_POLICIES = `
apiVersion: verdict.dev/v1
kind: SpinnakerPermissions
metadata: {name: apps}
spec:
  match: {resourceTypes: [application]}
  parameters: {permissions: {READ: [everyone]}}
  parameterSelection:
    - name: team-a
      match: {resourceNames: ["team-a-*"]}
      parameters: {permissions: {WRITE: [team-a]}}
`;
const FIAT_SUITE = `
apiVersion: verdict.dev/v1
kind: Suite
policies: [fiat.yaml]
spinnaker:
  definitions: definitions.yaml
cases:
  - name: team a writes its apps
    input: {user: alice, resourceType: application, resourceName: team-a-web, authorization: WRITE}
    expect: {allowed: true, parameters: {apps: {permissions: {READ: [everyone], WRITE: [team-a]}}}}
  - name: bob only reads
    input: {user: bob, resourceType: application, resourceName: team-a-web, authorization: WRITE}
    expect: {allowed: false, reason: {regex: "required authorization: WRITE$"}}
`;
const DEFINITIONS = `
users: {alice: [team-a, everyone], bob: [everyone]}
applications: [{name: team-a-web}]
`;

async function run(files: Record<string, string>): Promise<SuiteReport> {
  const { dir, cleanup } = tempTree(files);
  try {
    return await runSuites(['.'], { cwd: dir });
  } finally {
    cleanup();
  }
}

function failures(report: SuiteReport): string[] {
  return report.suites.flatMap((s) => [...(s.error ?? []), ...s.cases.flatMap((c) => [c.error ?? '', ...c.checks.filter((x) => !x.pass).map((x) => x.message)]).filter(Boolean)]);
}

describe('suites with adapter inputs', () => {
  it('wraps bare Kubernetes objects, looks up namespace labels and checks the AdmissionReview answer', async () => {
    const report = await run({ 'policies.yaml': GATEKEEPER, 'review.json': REVIEW, 'k.verdict.yaml': K8S_SUITE });
    expect(failures(report)).toEqual([]);
    expect(report.suites[0]!.cases.every((c) => c.adapter === 'kubernetes')).toBe(true);
    expect(summaryLine(report)).toBe('7 passed, 0 failed');
  });

  it('runs CI jobs through a controller chain and checks admission, tags, reason, parameters, patch and dry-run warnings', async () => {
    const report = await run({ 'project.yaml': CI_PROJECT, 'group.yaml': PROTECTED_DEPLOYS, 'instance.yaml': CI_INSTANCE, 'ci.verdict.yaml': CI_SUITE });
    expect(failures(report)).toEqual([]);
    expect(report.suites[0]!.cases.map((c) => c.adapter)).toEqual(['ci', 'ci', 'ci']);
    expect(report.suites[0]!.cases[0]!.answer).toEqual({ id: 1, admission: 'accepted', tags: { add: ['zone_a'], remove: [] }, reason: 'user is in zone a' });
  });

  it('answers Fiat queries from definitions and policies and checks the permission and its parameters', async () => {
    const report = await run({ 'fiat.yaml': FIAT_POLICIES, 'definitions.yaml': DEFINITIONS, 'f.verdict.yaml': FIAT_SUITE });
    expect(failures(report)).toEqual([]);
    expect(report.suites[0]!.cases.map((c) => c.adapter)).toEqual(['spinnaker', 'spinnaker']);
  });

  it('fails a Kubernetes case whose expectation is wrong, with the webhook status in the message', async () => {
    const report = await run({ 'policies.yaml': GATEKEEPER, 'review.json': REVIEW, 'k.verdict.yaml': K8S_SUITE.replace('status: 403', 'status: 500') });
    expect(failures(report)).toEqual(['expected status code 500, but it was 403']);
  });
});

describe('hints', () => {
  it('point at a namespace that has no labels in the suite', async () => {
    const report = await run({ 'policies.yaml': GATEKEEPER, 'review.json': REVIEW, 'k.verdict.yaml': K8S_SUITE.replace('    batch: {field.cattle.io/projectId: 32g-team}\n', '') });
    const failed = report.suites[0]!.cases.find((c) => c.status === 'failed')!;
    expect(failed.name).toBe('20Gi in batch is allowed');
    expect(failed.hint).toBe('namespace "batch" has no labels in this suite: list it under kubernetes.namespaces, or give the case namespaceLabels');
    expect(formatCaseFailure(failed)).toMatch(/\n\nhint: namespace "batch" has no labels in this suite/);
  });
});

/** A ConfigMap name may be used once per namespace: reads the inventory. */
const UNIQUE_NAME = `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: unique-data-key}
spec:
  match: {kinds: [{apiGroups: [""], kinds: [ConfigMap]}]}
  validate:
    - name: key-unused
      rule:
        none:
          - {entries: {get: [{var: inventory.namespace}, [{var: namespace}, v1, ConfigMap], {}]}}
          - and: [{"!=": [{var: key}, {input: name}]}, {"==": [{var: value.data.owner}, {input: object.data.owner}]}]
      message: owner {{object.data.owner}} already has a ConfigMap
`;
const CONFIG = (name: string, owner: string, namespace = 'web') => `{apiVersion: v1, kind: ConfigMap, metadata: {name: ${name}, namespace: ${namespace}}, data: {owner: ${owner}}}`;

describe('inventory in suite cases', () => {
  function suite(cases: string): Record<string, string> {
    return {
      'policies.yaml': UNIQUE_NAME,
      'existing.yaml': CONFIG('existing', 'alice'),
      'list.yaml': `{apiVersion: v1, kind: List, items: [${CONFIG('one', 'bob')}, ${CONFIG('two', 'carol')}]}`,
      'i.verdict.yaml': `apiVersion: verdict.dev/v1\nkind: Suite\npolicies: [policies.yaml]\ncases:\n${cases}`,
    };
  }

  it('gives policies the objects of files, Lists and inline entries as the inventory', async () => {
    const report = await run(suite(`
  - name: a file
    input: ${CONFIG('new', 'alice')}
    inventory: [existing.yaml]
    expect: {allowed: false, messages: [owner alice already has a ConfigMap]}
  - name: the items of a List
    input: ${CONFIG('new', 'carol')}
    inventory: [list.yaml]
    expect: {allowed: false}
  - name: inline, in another namespace
    input: ${CONFIG('new', 'alice')}
    inventory: [${CONFIG('existing', 'alice', 'other')}]
    expect: {allowed: true}
  - name: no inventory, no conflict
    input: ${CONFIG('new', 'alice')}
    expect: {allowed: true}
`));
    expect(failures(report)).toEqual([]);
    expect(summaryLine(report)).toBe('4 passed, 0 failed');
  });

  it('reports an inventory object without a name as an error of its case', async () => {
    const report = await run(suite(`
  - name: broken
    input: ${CONFIG('new', 'alice')}
    inventory: [{apiVersion: v1, kind: ConfigMap, metadata: {}}]
    expect: {allowed: true}
`));
    expect(report.suites[0]!.cases[0]!.status).toBe('error');
    expect(report.suites[0]!.cases[0]!.error).toMatch(/inventory object needs apiVersion, kind and metadata\.name/);
  });
});
