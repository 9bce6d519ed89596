import { describe, expect, it } from 'vitest';
import { loadExamples } from '../scripts/examples.js';
import { run } from '../playground/src/run.js';
import { repoRoot } from './harness.js';

/** The playground's example from `directory`, with `expression` made a syntax error (one `)` too many). */
function setup(directory: string, expression: string) {
  const example = loadExamples(repoRoot).find((e) => e.source.startsWith(`examples/${directory}/`));
  if (!example) throw new Error(`no playground example under examples/${directory}`);
  const policies = example.policies.replace(expression, `${expression})`);
  const first = example.cases[0];
  if (policies === example.policies || !first) throw new Error(`no "${expression}" in ${example.source}`);
  const line = policies.split('\n').findIndex((text) => text.includes(`${expression})`)) + 1;
  return { example, texts: { policies, input: first.input, settings: first.settings }, line };
}

describe('the playground evaluating CEL policies', () => {
  it("reports a CEL syntax error in a PolicyTemplate's validation at the line of its expression", async () => {
    const { example, texts, line } = setup('cel-policies', 'variables.replicas <= params.maxReplicas');
    const result = await run(example.adapter, texts);
    expect(result.decisions).toEqual([]);
    expect(result.problems).toEqual([expect.objectContaining({ editor: 'policies', code: 'INVALID_RULE', line })]);
    expect(result.problems[0]?.message).toContain('unexpected character');
  });

  it("reports a CEL syntax error in a ValidatingAdmissionPolicy's validation at the line of its expression", async () => {
    const { example, texts, line } = setup('validating-admission-policy', 'object.spec.replicas <= params.maxReplicas');
    expect(example.adapter).toBe('kubernetes');
    const result = await run(example.adapter, texts);
    expect(result.decisions).toEqual([]);
    expect(result.problems).toEqual([expect.objectContaining({ editor: 'policies', code: 'INVALID_RULE', line })]);
    expect(result.problems[0]?.message).toMatch(/^ValidatingAdmissionPolicy\/replicalimit-policy\.example\.com at \/spec\/validations\/0\/expression: /);
  });

  it('answers a ValidatingAdmissionPolicy example with the API server status and the binding that denied', async () => {
    const { example } = setup('validating-admission-policy', 'object.spec.replicas <= params.maxReplicas');
    const first = example.cases[0];
    const result = await run(example.adapter, { policies: example.policies, input: first?.input ?? '', settings: first?.settings ?? '' });
    expect(result.summary).toBe('AdmissionReview: allowed false, code 422');
    expect(result.decisions[0]?.decision.violations[0]).toMatchObject({ kind: 'ValidatingAdmissionPolicyBinding', message: 'object.spec.replicas must be no greater than 3' });
  });
});
