/** Issue 17, point 6: policy text given to the Fiat policy source names its file in load problems. */
import { describe, expect, it } from 'vitest';
import { PolicyLoadError } from '@verdict/core';
import { policyPermissionSource } from '@verdict/spinnaker';

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
