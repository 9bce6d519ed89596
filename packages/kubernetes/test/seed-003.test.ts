/**
 * Seed 003 (Gatekeeper #3082): the memory-limit and allowed-registries
 * constraints, loaded from the YAML, on real Pod AdmissionReviews with
 * Rancher project labels on the namespaces.
 */
import { describe, expect, it } from 'vitest';
import { type PolicyLoadError } from '@verdict/core';
import { admissionReviewFor, createAdmissionWebhook, NamespaceCache, toAdmissionInput } from '@verdict/kubernetes';
import { checked, namespace, pod } from './helpers.js';

const MEMORY_TEMPLATE = `
apiVersion: verdict.dev/v1
kind: PolicyTemplate
metadata: {name: k8smemorylimits}
spec:
  kind: K8sMemoryLimits
  parametersSchema:
    type: object
    properties: {limit: {type: string}}
    required: [limit]
  validate:
    - name: container-memory-limit
      forEach: {var: object.spec.containers}
      rule:
        and:
          - {"!!": {var: element.resources.limits.memory}}
          - {"<=": [{quantity: {var: element.resources.limits.memory}}, {quantity: {var: parameters.limit}}]}
      message: 'container {{element.name}} has memory limit {{element.resources.limits.memory | default "(none)"}}; set one of at most {{parameters.limit}}'
`;

/** The seed's single constraint with parameterSelection, verbatim (typo included). */
const SEED_SINGLE = `
kind: K8sMemoryLimits
metadata:
  name: memory-limit-enforcement-64gteam
spec:
  match:
    kinds:
    - apiGroups: [ "" ]
      kinds: [ Pod ]
    namespaceSelector:
      matchExpressions:
      - { key: "field.cattle.io/projectId", operation: NotIn, values: [ system, 32g-team, 64g-team ]}
  parameterSelection:
  - match:
      namespaceSelector:
        matchLabels:
          field.cattle.io/projectId: 32g-team
    parameters:
      limit: 32Gi
  - match:
      namespaceSelector:
        matchLabels:
          field.cattle.io/projectId: 64g-team
    parameters:
      limit: 64Gi
  - parameters:
      limit: 16Gi
`;

/** The seed's three MECE constraints (typo fixed): the status quo the proposal replaces. */
const SEED_THREE = `
kind: K8sMemoryLimits
metadata: {name: memory-limit-enforcement}
spec:
  match:
    kinds: [{apiGroups: [""], kinds: [Pod]}]
    namespaceSelector:
      matchExpressions:
      - { key: "field.cattle.io/projectId", operator: NotIn, values: [ system, 32g-team, 64g-team ]}
  parameters: {limit: 16Gi}
---
kind: K8sMemoryLimits
metadata: {name: memory-limit-enforcement-32gteam}
spec:
  match:
    kinds: [{apiGroups: [""], kinds: [Pod]}]
    namespaceSelector: {matchLabels: {field.cattle.io/projectId: 32g-team}}
  parameters: {limit: 32Gi}
---
kind: K8sMemoryLimits
metadata: {name: memory-limit-enforcement-64gteam}
spec:
  match:
    kinds: [{apiGroups: [""], kinds: [Pod]}]
    namespaceSelector: {matchLabels: {field.cattle.io/projectId: 64g-team}}
  parameters: {limit: 64Gi}
`;

const REGISTRY_TEMPLATE = `
apiVersion: verdict.dev/v1
kind: PolicyTemplate
metadata: {name: k8sallowedregistries}
spec:
  kind: K8sAllowedRegistries
  parametersSchema:
    type: object
    properties:
      allowed-registries: {type: array, items: {type: string}}
  validate:
    - name: registry-allowed
      forEach: {var: object.spec.containers}
      rule: {in: [{get: [{image: {var: element.image}}, registry]}, {var: parameters.allowed-registries}]}
      message: 'container {{element.name}} uses {{element.image}}; use an image from {{parameters.allowed-registries | join ", "}}'
`;

/** The seed's registries constraint, verbatim (its spec; the seed shows no kind/metadata). */
const SEED_REGISTRIES = `
kind: K8sAllowedRegistries
metadata: {name: allowed-registries}
spec:
  match:
    kinds:
    - apiGroups: [ "" ]
      kinds: [ Pod ]
  parameterSelection:
  - match:
      namespaceSelector:
        field.cattle.io/projectId: special-team1
    parameters:
      allowed-registries:
      - gcr.io
      - hub.docker.io
  - match:
      namespaceSelector:
        field.cattle.io/projectId: special-team2
    parameters:
      allowed-registries:
      - hub.docker.io
  parameters:
    allowed-registries:
    - internal.artifactory.example.com
`;

const PROJECTS = ['web', 'system', '32g-team', '64g-team', 'special-team1', 'special-team2'];

function setup(policies: string) {
  const cache = new NamespaceCache({ namespaces: PROJECTS.map((p) => namespace(`ns-${p}`, { 'field.cattle.io/projectId': p })) });
  const webhook = createAdmissionWebhook({ policies, namespaceLabels: cache });
  const admit = async (project: string, memory: string, image?: string) => {
    const review = admissionReviewFor(pod({ namespace: `ns-${project}`, memory, ...(image ? { image } : {}) }));
    const { response } = await checked(webhook, review);
    return response;
  };
  const trace = (project: string) => {
    const review = admissionReviewFor(pod({ namespace: `ns-${project}`, memory: '1Gi' }));
    return webhook.policies.evaluate(toAdmissionInput(review, { namespaceLabels: cache.get(`ns-${project}`)! }), { explain: true }).trace;
  };
  return { admit, trace };
}

function loadError(text: string): PolicyLoadError {
  try {
    createAdmissionWebhook({ policies: text });
  } catch (error) {
    return error as PolicyLoadError;
  }
  throw new Error('expected a load error');
}

describe('seed 003 memory limits', () => {
  it('reports the seed\'s "operation:" typo as a load error with a did-you-mean hint and a line number', () => {
    const error = loadError(MEMORY_TEMPLATE + '---' + SEED_SINGLE);
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatchObject({
      path: '/spec/match/namespaceSelector/matchExpressions/0/operation',
      message: 'unknown field "operation" in match expression; did you mean "operator"?',
      name: 'K8sMemoryLimits/memory-limit-enforcement-64gteam',
    });
    expect(error.problems[0]!.line).toBeGreaterThan(20);
  });

  it('loads verbatim once the typo is fixed: 16Gi for everyone, nothing for system', async () => {
    const { admit } = setup(MEMORY_TEMPLATE + '---' + SEED_SINGLE.replace('operation:', 'operator:'));
    expect((await admit('web', '8Gi')).allowed).toBe(true);
    const denied = await admit('web', '20Gi');
    expect(denied.allowed).toBe(false);
    expect(denied.status).toEqual({
      status: 'Failure', code: 403, reason: 'Forbidden',
      message: '[memory-limit-enforcement-64gteam] container app has memory limit 20Gi; set one of at most 16Gi',
    });
    expect((await admit('system', '200Gi')).allowed).toBe(true);
  });

  it('shows in the trace that the seed\'s top-level NotIn also excludes the 32g and 64g teams, so their entries never run', async () => {
    const { admit, trace } = setup(MEMORY_TEMPLATE + '---' + SEED_SINGLE.replace('operation:', 'operator:'));
    expect((await admit('32g-team', '200Gi')).allowed).toBe(true);
    expect(trace('32g-team')[0]).toMatchObject({
      matched: false,
      mismatch: { at: '/spec/match/namespaceSelector', selector: 'namespaceSelector: field.cattle.io/projectId notin (32g-team,64g-team,system)' },
    });
  });

  it('gives the decisions the seed describes once the top-level match excludes only system', async () => {
    const { admit, trace } = setup(MEMORY_TEMPLATE + '---' + SEED_SINGLE.replace('operation:', 'operator:').replace('system, 32g-team, 64g-team', 'system'));
    expect((await admit('32g-team', '20Gi')).allowed).toBe(true);
    expect((await admit('32g-team', '40Gi')).status?.message).toContain('at most 32Gi');
    expect((await admit('64g-team', '60Gi')).allowed).toBe(true);
    expect((await admit('64g-team', '80Gi')).status?.message).toContain('at most 64Gi');
    expect((await admit('web', '20Gi')).status?.message).toContain('at most 16Gi');
    expect((await admit('web', '')).status?.message).toContain('memory limit (none)');
    expect(trace('64g-team')[0]).toMatchObject({ matched: true, selection: { behavior: 'MatchFirst', matched: [{ index: 1 }], outcome: 'selected' }, parameters: { limit: '64Gi' } });
    expect(trace('web')[0]).toMatchObject({ selection: { matched: [{ index: 2 }] }, parameters: { limit: '16Gi' } });
  });

  it('gives the same decisions with the three MECE constraints the proposal replaces', async () => {
    const { admit } = setup(MEMORY_TEMPLATE + '---' + SEED_THREE);
    expect((await admit('32g-team', '20Gi')).allowed).toBe(true);
    expect((await admit('32g-team', '40Gi')).status?.message).toBe('[memory-limit-enforcement-32gteam] container app has memory limit 40Gi; set one of at most 32Gi');
    expect((await admit('64g-team', '80Gi')).status?.message).toContain('[memory-limit-enforcement-64gteam]');
    expect((await admit('web', '20Gi')).status?.message).toContain('[memory-limit-enforcement] ');
    expect((await admit('system', '200Gi')).allowed).toBe(true);
  });
});

describe('seed 003 allowed registries', () => {
  it('refuses the seed\'s namespaceSelector written as a bare label map, pointing to matchLabels', () => {
    const error = loadError(REGISTRY_TEMPLATE + '---' + SEED_REGISTRIES);
    expect(error.problems.map((p) => p.message)).toEqual([
      'unknown field "field.cattle.io/projectId" in label selector; to require the label write matchLabels: {field.cattle.io/projectId: special-team1}',
      'unknown field "field.cattle.io/projectId" in label selector; to require the label write matchLabels: {field.cattle.io/projectId: special-team2}',
    ]);
    // (core does not escape the "/" of the key in these pointers yet: "~1" per RFC 6901)
    expect(error.problems.map((p) => p.path.slice(0, 52))).toEqual(['/spec/parameterSelection/0/match/namespaceSelector/f', '/spec/parameterSelection/1/match/namespaceSelector/f']);
  });

  it('merges each team\'s registries over the default as the seed lists them (the union)', async () => {
    const fixed = SEED_REGISTRIES.replace(/namespaceSelector:\n(\s+)field/g, 'namespaceSelector:\n$1matchLabels:\n$1  field');
    const { admit, trace } = setup(REGISTRY_TEMPLATE + '---' + fixed);
    expect(trace('special-team1')[0]!.parameters).toEqual({ 'allowed-registries': ['internal.artifactory.example.com', 'gcr.io', 'hub.docker.io'] });
    expect(trace('special-team2')[0]!.parameters).toEqual({ 'allowed-registries': ['internal.artifactory.example.com', 'hub.docker.io'] });
    expect(trace('web')[0]!.parameters).toEqual({ 'allowed-registries': ['internal.artifactory.example.com'] });
    expect((await admit('special-team1', '1Gi', 'gcr.io/etl:2')).allowed).toBe(true);
    expect((await admit('special-team2', '1Gi', 'gcr.io/etl:2')).status?.message).toBe(
      '[allowed-registries] container app uses gcr.io/etl:2; use an image from internal.artifactory.example.com, hub.docker.io',
    );
    expect((await admit('web', '1Gi', 'internal.artifactory.example.com/web:1')).allowed).toBe(true);
  });
});
