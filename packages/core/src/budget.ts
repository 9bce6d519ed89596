/**
 * The cost meter of one evaluation. Work that grows with the input (iterating
 * a list, matching a pattern against a string, building a string) spends
 * units; when an evaluation has spent its budget, the meter throws
 * {@link BudgetExceeded} and the evaluation ends with an error decision.
 */

/** Thrown by {@link CostMeter.spend} when an evaluation exceeds its budget. */
export class BudgetExceeded extends Error {
  constructor(readonly limit: number) {
    super(`the evaluation exceeded its cost budget of ${limit} units`);
  }
}

export class CostMeter {
  private left: number;

  constructor(readonly limit: number) {
    this.left = limit;
  }

  /** Spends `units` (≥ 0); throws {@link BudgetExceeded} once the total passes the limit. */
  spend(units: number): void {
    this.left -= units;
    if (this.left < 0) throw new BudgetExceeded(this.limit);
  }

  /** Units spent so far. */
  get spent(): number {
    return this.limit - this.left;
  }
}

/** A meter that never runs out (load-time folding, `compileLogic` without a budget). */
export const UNMETERED: CostMeter = new CostMeter(Number.POSITIVE_INFINITY);
