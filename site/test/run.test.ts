import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../playground/src/run.js';
import { repoRoot } from './harness.js';

function setup() {
  const policy = readFileSync(join(repoRoot, 'examples/cel-policies/policies/workload-limits.yaml'), 'utf8');
  const broken = policy.replace('"variables.replicas <= params.maxReplicas"', '"variables.replicas <= params.maxReplicas)"');
  return { broken, brokenLine: broken.split('\n').findIndex((line) => line.includes('maxReplicas)"')) + 1 };
}

describe('the playground evaluating CEL policies', () => {
  it('reports a CEL syntax error at the line of its expression, with the column in the expression', async () => {
    const { broken, brokenLine } = setup();
    const result = await run('core', { policies: broken, input: '{}', settings: '' });
    expect(result.decisions).toEqual([]);
    expect(result.problems).toEqual([expect.objectContaining({ editor: 'policies', code: 'INVALID_RULE', line: brokenLine })]);
    expect(result.problems[0]?.message).toContain('unexpected character');
  });
});
