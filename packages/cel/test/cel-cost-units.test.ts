/**
 * verdict's cost units against the API server's: the rows of Kubernetes' cost_test.go (ported in
 * fixtures/kubernetes-cel-library with their `runtimeCost`, what cel-go's interpreter charged) run through
 * verdict's meter, planner and cel-js alike (units.ts). cost_test.go builds its program without cel-go's
 * `OptOptimize` and with presence tests charged, so the rows run in that model; the API server's own model
 * (constant literals free) is checked on a few of them. The count of rows charged exactly as upstream is held as a
 * floor, and every row that differs is listed, so that a change that moves verdict's units away from cel-go's fails here.
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

/** Rows charged as the API server charges them: every one. */
const EQUAL_FLOOR = 204;

describe("verdict's cost units against cel-go's (cost_test.go rows)", () => {
  it('charges the same as the API server on at least the rows it did, the planner and cel-js alike', () => {
    const tally = { equal: 0, lower: 0, higher: 0 };
    for (const row of costed) {
      const both = bothWays(row.expr, {}, celEnvironment(), false, COST_TEST);
      expect(both, row.expr).toBeDefined();
      const cost = both!.plan.cost;
      expect(cost, row.expr).toBe(both!.library.cost);
      expect(typeof cost, row.expr).toBe('number');
      const diff = cost! - row.runtimeCost!;
      if (diff === 0) tally.equal++;
      else if (diff < 0) tally.lower++;
      else tally.higher++;
    }
    expect(costed.length).toBe(204);
    expect(tally.equal + tally.lower + tally.higher).toBe(204);
    // The figures docs/security.md gives.
    console.log(`cost_test.go rows: ${tally.equal} equal, ${tally.lower} lower, ${tally.higher} higher than the API server's runtime cost`);
    expect(tally.equal).toBeGreaterThanOrEqual(EQUAL_FLOOR);
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
