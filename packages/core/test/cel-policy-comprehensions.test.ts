/**
 * CEL's two-variable comprehensions and optional syntax (@verdict/cel's cel-comprehensions and cel-optionals
 * tests) inside a policy: spec.variables, validate expressions and messageExpressions use them like any other.
 */
import { compilePolicies, parsePolicyDocuments } from '@verdict/core';
import { describe, expect, it } from 'vitest';
describe('two-variable comprehensions and optional syntax in a policy', () => {
  const policies = compilePolicies(parsePolicyDocuments(`
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: labels}
spec:
  variables:
    - {name: required, expression: "{?'team': object.metadata.?labels.?team, 'app': object.metadata.name}"}
  validate:
    - name: label-values
      expression: "object.metadata.labels.all(k, v, k.startsWith('example.com/') || v.size() <= 8)"
      messageExpression: "'labels too long: ' + object.metadata.labels.transformList(k, v, v.size() > 8, k).join(', ')"
    - name: team
      expression: "variables.required.exists(k, v, k == 'team' && v != '')"
      message: a team label is required
`, { source: 'labels.yaml' }));
  const pod = (labels: Record<string, string>) => ({ object: { metadata: { name: 'web', labels } } });

  it('decides with them like with any other expression', () => {
    expect(policies.evaluate(pod({ team: 'a', app: 'web', 'example.com/note': 'a long value' })).allowed).toBe(true);
    const denied = policies.evaluate(pod({ app: 'a-very-long-name', tier: 'backend-tier' }));
    expect(denied.violations.map((v) => v.message)).toEqual(['labels too long: app, tier', 'a team label is required']);
  });
});
