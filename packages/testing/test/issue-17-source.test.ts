/** Issue 17, point 6: evaluateInput names the file of policy text in load problems. */
import { describe, expect, it } from 'vitest';
import { PolicyLoadError } from '@verdict/core';
import { evaluateInput } from '@verdict/testing';

describe('source of evaluateInput', () => {
  it('names the file, line and column of a problem', async () => {
    const text = 'apiVersion: verdict.dev/v1\nkind: Policy\nmetadata: {name: p}\nspec:\n  validate: [{name: r, rule: {var: parameters.x}, message: m}]\n  parametersSchema: {type: object, properties: {y: {}}}\n';
    const error = await evaluateInput(text, { a: 1 }, { as: 'core', source: 'p.yaml' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolicyLoadError);
    expect((error as PolicyLoadError).message).toContain('p.yaml:5:36 (Policy/p) at /spec/validate/0/rule/var: reads parameters.x');
  });
});
