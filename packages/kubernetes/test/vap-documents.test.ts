import { describe, expect, it } from 'vitest';
import { PolicyLoadError, type Problem } from '@verdict/core';
import { AdmissionError, createAdmissionWebhook, loadKubernetesPolicies } from '@verdict/kubernetes';
import { binding, policy } from './vap-helpers.js';

function problemsOf(source: string | unknown[]): Problem[] {
  try {
    loadKubernetesPolicies(source as string, { source: 'policies.yaml' });
  } catch (error) {
    if (error instanceof PolicyLoadError) return [...error.problems];
    throw error;
  }
  throw new Error('expected the policies not to load');
}

const VALID = policy('replicas.example.com', { validations: [{ expression: 'object.spec.replicas <= 5' }] });

describe('ValidatingAdmissionPolicy documents', () => {
  it('loads a policy with its binding as one policy per binding, named after the binding', () => {
    const set = loadKubernetesPolicies([VALID, binding('a.example.com', 'replicas.example.com'), binding('b.example.com', 'replicas.example.com')]);
    expect(set.policies.map((p) => [p.kind, p.name, p.template])).toEqual([
      ['ValidatingAdmissionPolicyBinding', 'a.example.com', 'replicas.example.com'],
      ['ValidatingAdmissionPolicyBinding', 'b.example.com', 'replicas.example.com'],
    ]);
  });

  it('loads a policy without a binding, which does nothing', () => {
    expect(loadKubernetesPolicies([VALID]).policies).toEqual([]);
  });

  it('checks the logic of a policy without a binding all the same', () => {
    const [p] = problemsOf([policy('x.example.com', { validations: [{ expression: 'object.spec.replicas <=' }] })]);
    expect(p).toMatchObject({ code: 'INVALID_RULE', document: 0, path: '/spec/validations/0/expression', name: 'ValidatingAdmissionPolicy/x.example.com' });
  });

  it('reports a CEL syntax error at the line of the expression in the policy the user wrote', () => {
    const text = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p.example.com}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  validations:
  - expression: "object.spec.replicas <= "
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b.example.com}
spec: {policyName: p.example.com, validationActions: [Deny]}
`;
    const [p] = problemsOf(text);
    expect(p).toMatchObject({ document: 0, path: '/spec/validations/0/expression', source: 'policies.yaml', line: 8 });
    expect(p!.message).toMatch(/invalid CEL expression/);
  });

  it('refuses what the cluster\'s CEL environment lacks, at the line of the expression (kubernetesVersion, default the newest)', () => {
    const text = (expression: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p.example.com}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations:
  - expression: ${JSON.stringify(expression)}
`;
    const problems = (expression: string, kubernetesVersion?: string) => {
      try {
        loadKubernetesPolicies(text(expression), { source: 'policies.yaml', ...(kubernetesVersion ? { kubernetesVersion } : {}) });
      } catch (error) {
        if (error instanceof PolicyLoadError) return [...error.problems];
        throw error;
      }
      return [];
    };
    const [bind] = problems('cel.bind(n, object.metadata.name, n.size() < 64)');
    expect(bind).toMatchObject({ code: 'INVALID_RULE', path: '/spec/validations/0/expression', source: 'policies.yaml', line: 8 });
    expect(bind!.message).toMatch(/cel\.bind\(\) is not available in Kubernetes 1\.34's CEL environment/);
    const [mixed] = problems('object.metadata.name in ["a", 1]');
    expect(mixed!.message).toMatch(/expected type 'string' but found 'int' \(list and map literals must have elements of one type\) \(at column 31 of the expression\)/);
    const ip = 'object.spec.containers.all(c, !has(c.ip) || ip(c.ip).family() == 4)';
    expect(problems(ip)).toEqual([]);
    expect(problems(ip, '1.29')[0]!.message).toMatch(/ip\(\) is not available in Kubernetes 1\.29's CEL environment: it arrived with the IP library \(Kubernetes 1\.30\)/);
    expect(problems('duration("5 minutes") > duration("0s")')[0]!.message).toMatch(/invalid duration argument/);
  });

  it('gives the webhook\'s kubernetesVersion to the policies it loads, and refuses it for a compiled set', () => {
    const source = [policy('ip.example.com', { validations: [{ expression: 'ip("10.0.0.1").family() == 4' }] }), binding('b.example.com', 'ip.example.com')];
    expect(() => createAdmissionWebhook({ policies: source })).not.toThrow();
    expect(() => createAdmissionWebhook({ policies: source, kubernetesVersion: '1.29' })).toThrow(/ip\(\) is not available in Kubernetes 1\.29's CEL environment/);
    const compiled = loadKubernetesPolicies(source);
    expect(() => createAdmissionWebhook({ policies: compiled, kubernetesVersion: '1.29' })).toThrow(AdmissionError);
    expect(() => createAdmissionWebhook({ policies: compiled, kubernetesVersion: '1.29' })).toThrow(/kubernetesVersion cannot be added to a compiled policy set/);
  });

  it('refuses Deny and Warn together, as the API server does', () => {
    const [p] = problemsOf([VALID, binding('b.example.com', 'replicas.example.com', { validationActions: ['Deny', 'Warn'] })]);
    expect(p).toMatchObject({ document: 1, path: '/spec/validationActions', name: 'ValidatingAdmissionPolicyBinding/b.example.com' });
    expect(p!.message).toContain('must not contain both Deny and Warn');
  });

  it('refuses an empty or unknown validation action', () => {
    expect(problemsOf([VALID, binding('b.example.com', 'replicas.example.com', { validationActions: [] })])[0]!.message).toContain('at least one of Deny, Warn, Audit');
    expect(problemsOf([VALID, binding('b.example.com', 'replicas.example.com', { validationActions: ['Block'] })])[0]).toMatchObject({ path: '/spec/validationActions/0' });
  });

  it('refuses a paramRef with both name and selector, or with neither, or with an unknown parameterNotFoundAction', () => {
    const withParams = policy('p.example.com', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'true' }] });
    const both = problemsOf([withParams, binding('b.example.com', 'p.example.com', { paramRef: { name: 'x', selector: {}, parameterNotFoundAction: 'Deny' } })]);
    expect(both.map((p) => p.path)).toContain('/spec/paramRef/name');
    expect(both[0]!.message).toContain('mutually exclusive');
    const neither = problemsOf([withParams, binding('b.example.com', 'p.example.com', { paramRef: { parameterNotFoundAction: 'Deny' } })]);
    expect(neither[0]).toMatchObject({ path: '/spec/paramRef', message: 'one of name or selector must be specified' });
    const badAction = problemsOf([withParams, binding('b.example.com', 'p.example.com', { paramRef: { name: 'x', parameterNotFoundAction: 'Ignore' } })]);
    expect(badAction[0]).toMatchObject({ path: '/spec/paramRef/parameterNotFoundAction' });
  });

  it('requires validations or auditAnnotations', () => {
    const [p] = problemsOf([policy('p.example.com', {})]);
    expect(p).toMatchObject({ path: '/spec/validations', message: 'validations or auditAnnotations must contain at least one item' });
  });

  it('names unknown fields with a did-you-mean hint', () => {
    const [p] = problemsOf([policy('p.example.com', { validation: [{ expression: 'true' }], validations: [{ expression: 'true' }] })]);
    expect(p).toMatchObject({ path: '/spec/validation' });
    expect(p!.message).toContain('did you mean "validations"');
  });

  it('refuses a reason the API does not know, a message with a line break and a blank messageExpression', () => {
    const problems = problemsOf([policy('p.example.com', { validations: [{ expression: 'true', reason: 'Teapot', message: 'one\ntwo', messageExpression: '  ' }] })]);
    expect(problems.map((p) => p.path)).toEqual(['/spec/validations/0/message', '/spec/validations/0/messageExpression', '/spec/validations/0/reason']);
  });

  it('checks match condition and variable names', () => {
    const problems = problemsOf([policy('p.example.com', {
      matchConditions: [{ name: 'ok', expression: 'true' }, { name: 'ok', expression: 'true' }, { name: 'not a name', expression: 'true' }],
      variables: [{ name: 'in', expression: '1' }, { name: '9lives', expression: '1' }],
      validations: [{ expression: 'true' }],
    })]);
    expect(problems.map((p) => p.path)).toEqual(['/spec/matchConditions/1/name', '/spec/matchConditions/2/name', '/spec/variables/0/name', '/spec/variables/1/name']);
  });

  it('requires matchConstraints with at least one resource rule', () => {
    const noRules = { ...policy('p.example.com', { validations: [{ expression: 'true' }] }), spec: { matchConstraints: { namespaceSelector: {} }, validations: [{ expression: 'true' }] } };
    expect(problemsOf([noRules])[0]).toMatchObject({ path: '/spec/matchConstraints/resourceRules' });
  });

  it('reports a bad resource rule once, in the policy, even when two bindings copy it', () => {
    const bad = policy('p.example.com', {
      matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREAT'], resources: ['deployments'] }] },
      validations: [{ expression: 'true' }],
    });
    const problems = problemsOf([bad, binding('a.example.com', 'p.example.com'), binding('b.example.com', 'p.example.com')]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ document: 0, path: '/spec/matchConstraints/resourceRules/0/operations/0' });
    expect(problems[0]!.message).toContain('did you mean "CREATE"');
  });

  it('refuses resource names that cannot name an object, and repeated ones', () => {
    const rule = { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'], resourceNames: ['a/b', 'web', 'web'] };
    const problems = problemsOf([policy('p.example.com', { matchConstraints: { resourceRules: [rule] }, validations: [{ expression: 'true' }] })]);
    expect(problems.map((p) => p.path)).toEqual(['/spec/matchConstraints/resourceRules/0/resourceNames/0', '/spec/matchConstraints/resourceRules/0/resourceNames/2']);
  });

  it('reports a bad selector in a binding at the binding', () => {
    const problems = problemsOf([VALID, binding('b.example.com', 'replicas.example.com', { matchResources: { namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'Is', values: ['x'] }] } } })]);
    expect(problems[0]).toMatchObject({ document: 1, path: '/spec/matchResources/namespaceSelector/matchExpressions/0/operator' });
  });

  it('refuses a binding to a policy that is not in the set, with a did-you-mean hint', () => {
    const [p] = problemsOf([VALID, binding('b.example.com', 'replica.example.com')]);
    expect(p).toMatchObject({ document: 1, path: '/spec/policyName' });
    expect(p!.message).toContain('did you mean "replicas.example.com"');
  });

  it('reports a policy that does not load once, not again at its binding', () => {
    const broken = policy('replicas.example.com', { failurePolicy: 'Fial', validations: [{ expression: 'object.spec.replicas <= 5' }] });
    const problems = problemsOf([broken, binding('b.example.com', 'replicas.example.com')]);
    expect(problems).toEqual([expect.objectContaining({ document: 0, path: '/spec/failurePolicy' })]);
  });

  it('checks audit annotation keys as the API server does: <policy>/<key> must be a qualified name', () => {
    const [p] = problemsOf([policy('p.example.com', { auditAnnotations: [{ key: 'has space', valueExpression: "'x'" }] })]);
    expect(p).toMatchObject({ path: '/spec/auditAnnotations/0/key' });
  });

  it('refuses the authorizer, which a library cannot offer', () => {
    const [p] = problemsOf([policy('p.example.com', { validations: [{ expression: "authorizer.group('').resource('pods').check('get').allowed()" }] })]);
    expect(p!.message).toContain('"authorizer" is not available');
  });

  it('reads a MutatingAdmissionPolicy with the checks of the API server (an empty spec lacks matchConstraints and mutations)', () => {
    const problems = problemsOf([{ apiVersion: 'admissionregistration.k8s.io/v1beta1', kind: 'MutatingAdmissionPolicy', metadata: { name: 'm' }, spec: {} }]);
    expect(problems.map((p) => p.path).sort()).toEqual(['/spec/matchConstraints', '/spec/mutations']);
  });

  it('refuses two policies with one name', () => {
    expect(problemsOf([VALID, VALID]).find((p) => p.code === 'DUPLICATE')).toMatchObject({ document: 1, path: '/metadata/name' });
  });
});

describe('an admission kind under a wrong apiVersion', () => {
  it('is one problem naming the apiVersions of the kind, and its binding adds none', () => {
    const wrong = { ...VALID, apiVersion: 'admission.k8s.io/v1' };
    const problems = problemsOf([wrong, binding('a.example.com', 'replicas.example.com')]);
    expect(problems.map((p) => [p.code, p.path, p.document])).toEqual([['UNKNOWN_KIND', '/apiVersion', 0]]);
    expect(problems[0]!.message).toBe('ValidatingAdmissionPolicy is a Kubernetes kind of admissionregistration.k8s.io/v1, admissionregistration.k8s.io/v1beta1, '
      + 'admissionregistration.k8s.io/v1alpha1, but this document has apiVersion "admission.k8s.io/v1"; set apiVersion: admissionregistration.k8s.io/v1');
  });

  it('is named for a binding and a MutatingAdmissionPolicy too', () => {
    const problems = problemsOf([VALID, { ...binding('a.example.com', 'replicas.example.com'), apiVersion: 'admissionregistration.k8s.io/v2' }]);
    expect(problems.map((p) => [p.code, p.path])).toEqual([['UNKNOWN_KIND', '/apiVersion']]);
    expect(problems[0]!.message).toMatch(/^ValidatingAdmissionPolicyBinding is a Kubernetes kind of admissionregistration\.k8s\.io\/v1, .*"admissionregistration\.k8s\.io\/v2"/);
    const map = { apiVersion: 'admission.k8s.io/v1beta1', kind: 'MutatingAdmissionPolicy', metadata: { name: 'm' }, spec: {} };
    expect(problemsOf([map]).map((p) => [p.code, p.path])).toEqual([['UNKNOWN_KIND', '/apiVersion']]);
  });
});
