/**
 * The cost meter of one evaluation. Work that grows with the input (iterating
 * a list, matching a pattern against a string, building a string) spends
 * units; when an evaluation has spent its budget, the meter throws
 * {@link BudgetExceeded} and the evaluation ends with a `BUDGET_EXCEEDED`
 * error in its decision. Units follow Kubernetes CEL's cost model: about one
 * unit per list element or map entry visited, one per ten characters scanned
 * or built (docs/security.md has the table).
 */
import { VerdictError } from './errors.js';

/**
 * Default cost budget of one `PolicySet.evaluate` call, in units: the same
 * figure as Kubernetes' per-binding runtime CEL budget (`RuntimeCELCostBudget`),
 * roughly a second of work at worst, far above what realistic inputs need.
 */
export const DEFAULT_COST_BUDGET = 10_000_000;

/** Thrown by {@link CostMeter.spend} when an evaluation exceeds its budget; `evaluate` turns it into a decision error. */
export class BudgetExceeded extends VerdictError<'BUDGET_EXCEEDED'> {
  override readonly name = 'BudgetExceeded';
  /** The policy and rule that were running (set by the evaluator as the error passes). */
  policy?: { name: string; kind: string };
  rule?: string;

  constructor(readonly limit: number) {
    super('BUDGET_EXCEEDED', `the evaluation exceeded its cost budget of ${limit} units`);
  }
}

/** Units for scanning or building `length` characters: 1 + one per ten characters. */
export function textCost(length: number): number {
  return 1 + ((length / 10) | 0);
}

export class CostMeter {
  private left: number;

  /** @param limit units this meter may spend (`Infinity`: unlimited) */
  constructor(readonly limit: number) {
    this.left = limit;
  }

  /** Spends `units` (≥ 0); throws {@link BudgetExceeded} once the total passes the limit. */
  spend(units: number): void {
    this.left -= units;
    if (this.left < 0) throw new BudgetExceeded(this.limit);
  }

  /** Spends {@link textCost}`(length)`: for scanning, matching or building a string of `length` characters. */
  spendText(length: number): void {
    this.left -= 1 + ((length / 10) | 0);
    if (this.left < 0) throw new BudgetExceeded(this.limit);
  }

  /** Units spent so far. */
  get spent(): number {
    return this.limit - this.left;
  }
}

/** A meter that never runs out (load-time folding, `compileLogic` without a budget). */
export const UNMETERED: CostMeter = new CostMeter(Number.POSITIVE_INFINITY);
