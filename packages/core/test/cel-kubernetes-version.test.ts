/**
 * `cel.kubernetesVersion` of compilePolicies: verdict documents held to a Kubernetes release's CEL
 * environment (packages/cel/test/cel-versions.test.ts covers the environment itself).
 */
import { describe, expect, it } from 'vitest';
import { compilePolicies, parsePolicyDocuments, PolicyLoadError, VerdictError } from '../src/index.js';

describe('CEL in policy documents held to a Kubernetes version', () => {
  it('reports a refusal in a policy document with its line and column', () => {
    try {
      compilePolicies(parsePolicyDocuments(`
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: p}
spec:
  validate:
    - name: images
      expression: "object.spec.containers.all(c, c.image.matches('^[a-z]+$'))"
    - name: format
      expression: "format.dns1123Label().validate(object.metadata.name).hasValue() == false"
`, { source: 'policy.yaml' }), { cel: { kubernetesVersion: '1.30' } });
      throw new Error('expected a load error');
    } catch (error) {
      expect(error).toBeInstanceOf(PolicyLoadError);
      const [problem] = (error as PolicyLoadError).problems;
      expect(problem).toMatchObject({ path: '/spec/validate/1/expression', line: 10, code: 'INVALID_RULE' });
      expect(problem!.message).toMatch(/is not available in Kubernetes 1\.30's CEL environment: it arrived with the format library \(Kubernetes 1\.31\) \(at column 1 of the expression\)/);
    }
  });

  it('refuses a malformed version as invalid options', () => {
    const documents = parsePolicyDocuments('apiVersion: verdict.dev/v1\nkind: Policy\nmetadata: {name: p}\nspec:\n  validate:\n    - {name: v, expression: "true"}\n');
    expect(() => compilePolicies(documents, { cel: { kubernetesVersion: '2' } })).toThrow(VerdictError);
  });
});
