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
