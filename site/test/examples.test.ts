import { describe, expect, it } from 'vitest';
import { DEFAULT_EXAMPLE, loadExamples } from '../scripts/examples.js';
import { run } from '../playground/src/run.js';
import { repoRoot } from './harness.js';

function setup() {
  return { examples: loadExamples(repoRoot) };
}

describe("the playground's examples", () => {
  it("open on seed 003's memory limits on the webhook, then cover every adapter", () => {
    const { examples } = setup();
    const first = examples[0];
    expect(first?.source).toBe(DEFAULT_EXAMPLE.file);
    expect(first?.cases[first.defaultCase]?.name).toMatch(DEFAULT_EXAMPLE.caseName);
    expect(first?.policies).toContain('kind: K8sMemoryLimits');
    expect(new Set(examples.map((e) => e.adapter))).toEqual(new Set(['core', 'kubernetes', 'ci', 'fiat']));
    expect(new Set(examples.map((e) => e.id)).size).toBe(examples.length);
  });

  it('include a gatekeeper-library port, CEL policies, ValidatingAdmissionPolicies, the GitLab scenarios and the Fiat permissions, in the picker order', () => {
    const { examples } = setup();
    const directories = [...new Set(examples.map((e) => e.source.split('/')[1]))];
    const named = ['kubernetes-webhook', 'gatekeeper-library', 'cel-policies', 'validating-admission-policy', 'ci', 'spinnaker'];
    expect(directories.filter((dir) => named.includes(dir as string))).toEqual(named);
  });

  it('include the Kyverno MutatingPolicy example, which patches in a mutating webhook', async () => {
    const { examples } = setup();
    const example = examples.find((e) => e.source === 'examples/mutating-policy/mutating-policy.verdict.yaml');
    expect(example?.policies).toContain('kind: MutatingPolicy');
    const first = example!.cases[0]!;
    const result = await run(example!.adapter, { policies: example!.policies, input: first.input, settings: first.settings });
    expect(result.problems).toEqual([]);
    expect(result.decisions[0]?.decision.patch).toContainEqual({ op: 'add', path: '/spec/containers/0/imagePullPolicy', value: 'Always' });
  });

  it('answer every case of every suite as the suite expects, through the code the page runs', async () => {
    const { examples } = setup();
    for (const example of examples) {
      for (const c of example.cases) {
        const result = await run(example.adapter, { policies: example.policies, input: c.input, settings: c.settings });
        const where = `${example.id}: ${c.name}`;
        expect(result.problems, where).toEqual([]);
        expect(result.decisions.length, where).toBeGreaterThan(0);
        if (c.expected) expect(result.allowed ? 'allowed' : 'denied', where).toBe(c.expected);
      }
    }
  });
});
