import { describe, expect, it } from 'vitest';
import { parsePolicyDocuments, PolicyLoadError } from '@verdict/core';
import { loadKubernetesPolicies } from '@verdict/kubernetes';
import { validatingPolicy } from './kyverno-helpers.js';

/** The problems of loading `docs`, as `<line> <path>: <message>` (empty when they load). */
function problems(docs: unknown[] | string): string[] {
  try {
    loadKubernetesPolicies(docs as never);
    return [];
  } catch (error) {
    if (!(error instanceof PolicyLoadError)) throw error;
    return error.problems.map((p) => `${p.line ?? '-'} ${p.path}: ${p.message}`);
  }
}

const failing = { validations: [{ expression: 'false' }] };

describe('loading Kyverno ValidatingPolicies', () => {
  it.each(['v1', 'v1beta1', 'v1alpha1'])('reads ValidatingPolicy in policies.kyverno.io/%s', (version) => {
    const set = loadKubernetesPolicies([validatingPolicy('p', failing, { apiVersion: `policies.kyverno.io/${version}` })] as never);
    expect(set.policies.map((p) => `${p.kind}/${p.name}`)).toEqual(['ValidatingPolicy/p', 'ValidatingPolicy/p/autogen-cronjobs', 'ValidatingPolicy/p/autogen-defaults']);
  });

  it('refuses Kyverno\'s other policy kinds with what it loads instead', () => {
    const doc = (apiVersion: string, kind: string) => ({ apiVersion, kind, metadata: { name: 'x' }, spec: {} });
    expect(problems([doc('policies.kyverno.io/v1', 'ImageValidatingPolicy'), doc('kyverno.io/v1', 'ClusterPolicy')])).toEqual([
      '- : Kyverno\'s ImageValidatingPolicy is not supported: verdict loads ValidatingPolicy, NamespacedValidatingPolicy, MutatingPolicy and NamespacedMutatingPolicy of policies.kyverno.io (docs/kyverno.md#what-is-refused)',
      '- : Kyverno\'s ClusterPolicy (kyverno.io) is not supported: verdict loads Kyverno\'s CEL policies (policies.kyverno.io: ValidatingPolicy, MutatingPolicy and their namespaced kinds); write the rules as one of them or as a verdict Policy (docs/kyverno.md#what-is-refused)',
    ]);
  });

  it('refuses a version Kyverno does not serve for the kind, naming the ones it does', () => {
    expect(problems([validatingPolicy('p', failing, { kind: 'NamespacedValidatingPolicy', apiVersion: 'policies.kyverno.io/v1alpha1' })])).toEqual([
      '- /apiVersion: Kyverno serves NamespacedValidatingPolicy as policies.kyverno.io/v1, policies.kyverno.io/v1beta1 (got "policies.kyverno.io/v1alpha1")',
    ]);
  });

  it('reports problems at the line of the policy as written', () => {
    const text = [
      'apiVersion: policies.kyverno.io/v1',
      'kind: ValidatingPolicy',
      'metadata: {name: p}',
      'spec:',
      '  validationActions: [Deny, Block]',
      '  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}',
      '  validations:',
      '    - expression: "object.spec.containers.all(c, c.image.startsWith(\'x\')"',
      '  variabels: []',
    ].join('\n');
    expect(problems(parsePolicyDocuments(text))).toEqual([
      '5 /spec/validationActions/1: validation action must be one of Deny, Warn, Audit (got "Block")',
      '9 /spec/variabels: unknown field "variabels" in the spec of a ValidatingPolicy; did you mean "variables"? (known: matchConstraints, matchConditions, variables, validations, auditAnnotations, failurePolicy, validationActions, evaluation, autogen, webhookConfiguration)',
    ]);
    expect(problems(parsePolicyDocuments(text.replace('Deny, Block', 'Deny').replace('  variabels: []', '')))).toEqual([
      expect.stringMatching(/^8 \/spec\/validations\/0\/expression: invalid CEL expression: /),
    ]);
  });

  it('requires matchConstraints with at least one resource rule, as Kyverno validates it', () => {
    expect(problems([validatingPolicy('p', { ...failing, matchConstraints: { resourceRules: [] } })])).toEqual([
      '- /spec/matchConstraints: a matchConstraints with at least one resource rule is required (which requests the policy applies to)',
    ]);
  });

  it('refuses evaluation modes other than Kubernetes with the reason', () => {
    expect(problems([validatingPolicy('p', { ...failing, evaluation: { mode: 'JSON' } })])).toEqual([
      expect.stringContaining("/spec/evaluation/mode: evaluation.mode JSON is not supported: verdict's Kubernetes adapter evaluates admission requests"),
    ]);
  });

  it('refuses two policies of the same kind and name', () => {
    expect(problems([validatingPolicy('p', failing), validatingPolicy('p', failing)])).toEqual(['- /metadata/name: ValidatingPolicy "p" is already defined by document 0']);
  });

  it('accepts what Kyverno stores without the API server\'s checks: an empty message, Deny with Warn', () => {
    expect(problems([validatingPolicy('p', { validationActions: ['Deny', 'Warn'], validations: [{ expression: 'false', message: '' }] })])).toEqual([]);
  });
});

describe('Kyverno CEL libraries that need a cluster or the network', () => {
  it.each([
    ['resource.Get("v1", "configmaps", "default", "x").data', "Kyverno's resource library (resource.Get, resource.List, resource.Post) reads the cluster"],
    ['resource.List("apps/v1", "deployments", "").items', "Kyverno's resource library"],
    ['http.Get("https://example.com").ok', "Kyverno's http library (http.Get, http.Post) calls the network"],
    ['globalContext.Get("entry", "path")', "Kyverno's globalContext library reads GlobalContextEntries from the cluster"],
    ['image.GetMetadata(object.spec.containers[0].image).config', "Kyverno's image data library (image.GetMetadata) fetches image manifests and configs from a registry"],
  ])('refuses %s at load, saying why', (expression, reason) => {
    const [problem] = problems([validatingPolicy('p', { validations: [{ expression: `${expression} != null` }] })]);
    expect(problem).toContain(reason);
    expect(problem).toContain('verdict evaluates without access to a cluster or the network');
  });

  it('refuses the pure functions verdict does not implement yet, by name', () => {
    expect(problems([validatingPolicy('p', { validations: [{ expression: "sha256('x') != ''" }] })])).toEqual([expect.stringContaining('sha256() is a Kyverno CEL function verdict does not implement yet')]);
    expect(problems([validatingPolicy('p', { validations: [{ expression: 'time.now() > timestamp("2020-01-01T00:00:00Z")' }] })])).toEqual([expect.stringContaining('time.now() is a Kyverno CEL function')]);
  });

  it('keeps Kyverno\'s libraries out of ValidatingAdmissionPolicies', () => {
    const vap = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'v' }, spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] }, validations: [{ expression: "image('nginx').registry() == ''" }] } };
    expect(problems([vap])).toEqual([expect.stringContaining('/spec/validations/0/expression: invalid CEL expression')]);
  });
});
