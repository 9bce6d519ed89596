import { describe, expect, it } from 'vitest';
import { run } from '../src/index.js';

describe('CEL policies example', () => {
  it('decides each workload with the parameters chosen for its namespace', () => {
    expect(run().map(({ namespace, decision }) => [namespace, decision.allowed, decision.violations.map((v) => v.rule)])).toEqual([
      ['shop', true, []],
      ['shop', false, ['memory-limit', 'replicas']],
      ['batch', true, []],
      ['ml-batch', true, []],
    ]);
  });

  it('shows the merged parameters and the CEL variables in the trace', () => {
    const ml = run()[3]!.decision.trace[0]!;
    expect(ml.selection?.matched.map((e) => e.name)).toEqual(['batch-tier', 'ml-team']);
    expect(ml.parameters).toEqual({ maxMemory: '16Gi', maxReplicas: 50, registries: ['registry.example.com', 'nvcr.io'] });
    expect(ml.variables).toMatchObject({ replicas: 2 });
  });
});
