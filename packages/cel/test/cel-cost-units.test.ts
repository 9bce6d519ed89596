/**
 * verdict's cost units against the API server's: the rows of Kubernetes' cost_test.go (ported in
 * fixtures/kubernetes-cel-library with their `runtimeCost`, what cel-go's interpreter charged) run through
 * verdict's meter, planner and cel-js alike (units.ts). cost_test.go builds its program without cel-go's
 * `OptOptimize` and with presence tests charged, so the rows run in that model; the API server's own model
 * (constant literals free) is checked on a few of them. Every row is charged exactly as upstream, so that a change
 * that moves verdict's units away from cel-go's fails here, naming the rows it moved.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bothWays } from './cel-differential.js';
import { celEnvironment } from '../src/env.js';
import type { UnitModel } from '../src/units.js';

/** cost_test.go's program: `env.Program(compiled, cel.CostTracking(est))`, no `OptOptimize`, presence tests charged. */
const COST_TEST: UnitModel = { folded: false, presenceCost: true };

interface Row {
  readonly file: string;
  readonly name: string;
  readonly expr: string;
  readonly runtimeCost?: number;
}

const { rows } = JSON.parse(readFileSync(new URL('./fixtures/kubernetes-cel-library/cases.json', import.meta.url), 'utf8')) as { rows: Row[] };
const costed = rows.filter((r) => r.runtimeCost !== undefined);

describe("verdict's cost units against cel-go's (cost_test.go rows)", () => {
  it('charges every row as the API server does, the planner and cel-js alike', () => {
    const differing: string[] = [];
    for (const row of costed) {
      const both = bothWays(row.expr, {}, celEnvironment(), false, COST_TEST);
      expect(both, row.expr).toBeDefined();
      const cost = both!.plan.cost;
      expect(cost, row.expr).toBe(both!.library.cost);
      expect(typeof cost, row.expr).toBe('number');
      if (cost !== row.runtimeCost) differing.push(`${row.expr}: ${cost} where the API server charges ${row.runtimeCost}`);
    }
    expect(costed.length).toBe(204);
    // docs/security.md says all 204 rows are charged exactly.
    expect(differing).toEqual([]);
  });

  it("costs nothing for literals of constants in the API server's model (cel-go's OptOptimize builds them once)", () => {
    const cost = (expr: string) => bothWays(expr, {})!.plan.cost;
    expect(cost('[1, 2, 3, 4, 5].sum()')).toBe(5);
    expect(cost("{'a': 1, 'b': 2}.all(k, v, v > 0)")).toBe(41 - 30);
    expect(cost("duration('1s') < duration('2s')")).toBe(1);
    // `x in [constants]` is a set lookup: the call costs nothing, `x` (here a list of one constant) its part.
    expect(cost("'b' in ['a', 'b', 'c']")).toBe(0);
    expect(cost("'b' in ['a', 'b', 'c'] && [1].all(x, x > 0)")).toBe(5 + 1);
  });
});
