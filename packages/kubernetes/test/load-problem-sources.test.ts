/**
 * Load problems of policy text name the file
 * (`source`) and the line and column; Gatekeeper match keys without the
 * Kubernetes dialect say where they come from.
 */
import { describe, expect, it } from 'vitest';
import { compilePolicies, PolicyLoadError, adapterOfMatchKey } from '@verdict/core';
import { createAdmissionWebhook, kubernetesDialect, loadKubernetesPolicies } from '@verdict/kubernetes';

const TEXT = `apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: p}
spec:
  paramters: {limit: 1}
  validate: [{name: r, rule: true, message: m}]
`;

function loadError(load: () => unknown): PolicyLoadError {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyLoadError);
    return error as PolicyLoadError;
  }
  return expect.unreachable('expected a PolicyLoadError');
}

describe('source on the Kubernetes loaders', () => {
  it('createAdmissionWebhook names the source file, line and column', () => {
    const error = loadError(() => createAdmissionWebhook({ policies: TEXT, source: 'policies.yaml' }));
    expect(error.message).toContain('policies.yaml:5:3 (Policy/p) at /spec/paramters: unknown field "paramters"; did you mean "parameters"?');
  });

  it('says line and column when no source is given', () => {
    const error = loadError(() => createAdmissionWebhook({ policies: TEXT }));
    expect(error.message).toContain('line 5:3 (Policy/p) at /spec/paramters');
  });

  it('loadKubernetesPolicies and webhook.update take the source too', () => {
    expect(loadError(() => loadKubernetesPolicies(TEXT, { source: 'a.yaml' })).problems[0]).toMatchObject({ source: 'a.yaml', line: 5, column: 3 });
    const webhook = createAdmissionWebhook({ policies: [] });
    expect(loadError(() => webhook.update(TEXT, { source: 'b.yaml' })).problems[0]).toMatchObject({ source: 'b.yaml', line: 5 });
  });

  it('refuses a source that is not a string', () => {
    expect(() => createAdmissionWebhook({ policies: [], source: 5 as unknown as string })).toThrow(/source must be a string/);
  });
});

describe('kubernetes match keys without the dialect', () => {
  it('say which package provides them and how to load with it', () => {
    for (const key of kubernetesDialect.keys) {
      expect(adapterOfMatchKey(key), key).toBe('kubernetes');
      const doc = { apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'p' }, spec: { match: { [key]: {} } } };
      try {
        compilePolicies([doc]);
        expect.unreachable(`${key} loaded without its dialect`);
      } catch (error) {
        expect((error as PolicyLoadError).problems[0]!.message, key).toBe(`unknown match field "${key}": it belongs to the Gatekeeper and webhook match vocabulary of @verdict/kubernetes, which is not registered here; load them with loadKubernetesPolicies or createAdmissionWebhook, or pass {dialects: [kubernetesDialect]} to compilePolicies`);
      }
    }
  });
});

describe('paths of the admission input', () => {
  const policy = (path: string) => `apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: p}
spec:
  validate: [{name: r, rule: {"!": {in: [{var: ${path}}, [kube-system]]}}, message: m}]
`;

  it('refuses a misspelt top-level field at load, with a did-you-mean', () => {
    expect(loadError(() => loadKubernetesPolicies(policy('objcet.metadata.namespace'), { source: 'p.yaml' })).problems).toEqual([expect.objectContaining({
      code: 'UNKNOWN_INPUT_PATH', path: '/spec/validate/0/rule/!/in/0/var', source: 'p.yaml', line: 5,
      message: expect.stringMatching(/^reads objcet\.metadata\.namespace, but the admission input has no "objcet"; did you mean "object"\? \(it has: uid, kind, /),
    })]);
  });

  it('leaves the contents of the object and the other top-level fields open', () => {
    for (const path of ['object.metadata.namespace', 'oldObject.spec.anything', 'namespace', 'userInfo.username', 'namespaceLabels.team', 'kind.kind']) {
      expect(() => loadKubernetesPolicies(policy(path)), path).not.toThrow();
    }
  });
});
