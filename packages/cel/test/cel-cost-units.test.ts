/**
 * verdict's cost units against the API server's: the rows of Kubernetes' cost_test.go (ported in
 * fixtures/kubernetes-cel-library with their `runtimeCost`, what cel-go's interpreter charged) run through
 * verdict's meter, planner and cel-js alike. verdict's units are its own (docs/concepts/cel.md, docs/security.md):
 * this counts the rows charged exactly as the API server does, fewer and more units, and holds the count of
 * equal rows as a floor, so that a change that moves verdict's units away from cel-go's fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bothWays } from './cel-differential.js';

interface Row {
  readonly file: string;
  readonly name: string;
  readonly expr: string;
  readonly runtimeCost?: number;
}

const { rows } = JSON.parse(readFileSync(new URL('./fixtures/kubernetes-cel-library/cases.json', import.meta.url), 'utf8')) as { rows: Row[] };
const costed = rows.filter((r) => r.runtimeCost !== undefined);

/** Rows charged as the API server charges them, at least (raise it when verdict's units come closer). */
const EQUAL_FLOOR = 87;

describe("verdict's cost units against cel-go's (cost_test.go rows)", () => {
  it('charges the same as the API server on at least the rows it did, the planner and cel-js alike', () => {
    const tally = { equal: 0, lower: 0, higher: 0 };
    for (const row of costed) {
      const both = bothWays(row.expr, {});
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
});
