/**
 * Policy text given to the Fiat policy source names
 * its file in load problems; Fiat match keys without the dialect say where they come from.
 */
import { describe, expect, it } from 'vitest';
import { compilePolicies, PolicyLoadError, adapterOfMatchKey } from '@verdict/core';
import { policyPermissionSource } from '@verdict/spinnaker';
import { spinnakerMatchDialect } from '@verdict/spinnaker';

describe('source of policyPermissionSource', () => {
  it('names the file, line and column of a problem', () => {
    const text = 'kind: SpinnakerPermissions\nmetadata: {name: p}\nspec:\n  matchh: {}\n';
    try {
      policyPermissionSource(text, { source: 'fiat.yaml' });
      expect.unreachable('expected a PolicyLoadError');
    } catch (error) {
      expect(error).toBeInstanceOf(PolicyLoadError);
      expect((error as PolicyLoadError).message).toMatch(/fiat\.yaml:4:3 \(SpinnakerPermissions\/p\) at \/spec\/matchh: unknown field "matchh"; did you mean "match"\?/);
    }
  });
});

describe('spinnaker match keys without the dialect', () => {
  it('say which package provides them and how to load with it', () => {
    for (const key of spinnakerMatchDialect.keys) {
      expect(adapterOfMatchKey(key), key).toBe('spinnaker');
      const doc = { apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'p' }, spec: { match: { [key]: {} } } };
      try {
        compilePolicies([doc]);
        expect.unreachable(`${key} loaded without its dialect`);
      } catch (error) {
        expect((error as PolicyLoadError).problems[0]!.message, key).toBe(`unknown match field "${key}": it belongs to the Fiat resource match vocabulary of @verdict/spinnaker, which is not registered here; load them with policyPermissionSource, or pass {dialects: [spinnakerMatchDialect]} to compilePolicies`);
      }
    }
  });
});

describe('paths of the resource input', () => {
  const policy = (path: string) => `
kind: SpinnakerPermissions
metadata: {name: p}
spec:
  match: {when: {starts_with: [{var: ${path}}, prod-]}}
  parameters: {permissions: {READ: [ops]}}
`;

  it('refuses a misspelt resource field at load, with a did-you-mean', () => {
    try {
      policyPermissionSource(policy('resource.nmae'), { source: 'fiat.yaml' });
      expect.unreachable('expected a PolicyLoadError');
    } catch (error) {
      expect((error as PolicyLoadError).problems).toEqual([expect.objectContaining({
        code: 'UNKNOWN_INPUT_PATH', path: '/spec/match/when/starts_with/0/var', line: 5,
        message: 'reads resource.nmae, but the Spinnaker resource input has no "nmae" under resource; did you mean "name"? (it has: type, name, attributes, permissions)',
      })]);
    }
  });

  it('accepts the fields the resource input has, and any attribute', () => {
    for (const path of ['resource.name', 'resource.type', 'resource.attributes.cloudProviders', 'resource.permissions.READ']) {
      expect(() => policyPermissionSource(policy(path)), path).not.toThrow();
    }
    const source = policyPermissionSource(policy('resource.name'));
    expect(source.explain({ type: 'application', name: 'prod-api' }).contributions.map((c) => c.policy)).toEqual(['p']);
    expect(source.explain({ type: 'application', name: 'dev-api' }).contributions).toEqual([]);
  });
});
