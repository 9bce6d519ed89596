import { describe, expect, it } from 'vitest';
import { PolicyLoadError, type Problem } from '@verdict/core';
import { AdmissionError, createAdmissionWebhook, loadKubernetesPolicies, type KubernetesObject } from '@verdict/kubernetes';
import { bound } from './map-helpers.js';
import { webhookFor } from './helpers.js';

const LABEL = `[JSONPatch{op: "add", path: "/metadata/labels", value: {"team": "web"}}]`;

const YAML = `apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: team.example.com}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  mutations: [{patchType: JSONPatch, jsonPatch: {expression: '${LABEL}'}}]
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: team}
spec: {policyName: team.example.com}
`;

function setup() {
  const pod: KubernetesObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop' }, spec: { containers: [{ name: 'web', image: 'web' }] } };
  const documents = () => bound('team.example.com', [LABEL]);
  const problemsOf = (fn: () => unknown): Problem[] => {
    try {
      fn();
    } catch (error) {
      if (error instanceof PolicyLoadError) return [...error.problems];
      throw error;
    }
    throw new Error('expected the policies not to load');
  };
  return { pod, documents, problemsOf };
}

describe('MutatingAdmissionPolicies given to a validating webhook', () => {
  it('are refused at load, each document with its line, since a validating webhook never applies a mutation', () => {
    const { problemsOf } = setup();
    const problems = problemsOf(() => createAdmissionWebhook({ policies: YAML, source: 'team.yaml' }));
    expect(problems.map((p) => ({ code: p.code, document: p.document, name: p.name, path: p.path, source: p.source, line: p.line }))).toEqual([
      { code: 'UNSUPPORTED', document: 0, name: 'MutatingAdmissionPolicy/team.example.com', path: '', source: 'team.yaml', line: 1 },
      { code: 'UNSUPPORTED', document: 1, name: 'MutatingAdmissionPolicyBinding/team', path: '', source: 'team.yaml', line: 8 },
    ]);
    expect(problems[0]!.message).toBe('MutatingAdmissionPolicy "team.example.com" mutates objects, but these policies are loaded for a validating webhook, which never applies a mutation; load them for a mutating webhook (mutating: true in createAdmissionWebhook, kubernetes: {mutating: true} in a verdict config) or remove it');
    expect(problems[1]!.message).toMatch(/^MutatingAdmissionPolicyBinding "team" binds a MutatingAdmissionPolicy, but these policies are loaded for a validating webhook/);
  });

  it('are applied by a mutating webhook', async () => {
    const { pod, documents } = setup();
    const { response, patched } = await webhookFor({ policies: documents() as never, mutating: true }).run(pod);
    expect(response.allowed).toBe(true);
    expect((patched as { metadata: { labels?: unknown } }).metadata.labels).toEqual({ team: 'web' });
  });

  it('are refused by update() of a validating webhook, which keeps its current set', () => {
    const { documents, problemsOf } = setup();
    const webhook = createAdmissionWebhook({ policies: [] });
    const before = webhook.policies;
    expect(problemsOf(() => webhook.update(documents() as never)).map((p) => p.code)).toEqual(['UNSUPPORTED', 'UNSUPPORTED']);
    expect(webhook.policies).toBe(before);
  });

  it('load anywhere else (audits, tests), and a compiled set holding them is refused by a validating webhook only', () => {
    const { documents } = setup();
    const set = loadKubernetesPolicies(documents() as never);
    expect(set.policies.map((p) => p.kind)).toEqual(['MutatingAdmissionPolicyBinding']);
    expect(() => createAdmissionWebhook({ policies: set })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS', message: expect.stringMatching(/holds MutatingAdmissionPolicyBinding "team\.example\.com", but a validating webhook never applies a mutation/) }));
    expect(() => createAdmissionWebhook({ policies: set })).toThrow(AdmissionError);
    expect(createAdmissionWebhook({ policies: set, mutating: true }).policies).toBe(set);
  });

  it('are refused by loadKubernetesPolicies for a validating webhook, whose webhook option is checked', () => {
    const { documents, problemsOf } = setup();
    expect(problemsOf(() => loadKubernetesPolicies(documents() as never, { webhook: 'validating' })).map((p) => p.path)).toEqual(['', '']);
    expect(loadKubernetesPolicies(documents() as never, { webhook: 'mutating' }).policies).toHaveLength(1);
    expect(() => loadKubernetesPolicies(documents() as never, { webhook: 'Validating' as never })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
  });
});
