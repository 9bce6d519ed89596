/**
 * What a CEL evaluation spends its cost from. Any object with `spend` and `work` will do (a policy engine passes
 * its own meter, whose overrun error then comes out of the evaluation unchanged); {@link CelBudget} is the
 * plain one `compileCel` uses.
 *
 * Two kinds of units are spent. `spend` takes the API server's own units (cel-go's runtime cost with
 * Kubernetes' library costs, units.ts): a per-expression or per-policy limit counts those only, so that verdict
 * cancels what the API server cancels and admits what it admits. `work` takes the units of what verdict does
 * where cel-go does nothing comparable (converting JSON input to CEL values, walking two lists compared, listing the
 * keys of a wide map): the evaluation's budget holds them to the same figure, counted apart, so that every
 * evaluation is bounded by its work, whatever cel-go would have charged.
 */
import { CelBudgetExceeded } from './errors.js';

/** A cost meter: `spend(units)` and `work(units)` throw once the evaluation is over its budget. */
export interface CelMeter {
  /** Spends `units` of the API server's cost (counted against any limit and the budget). */
  spend(units: number): void;
  /** Spends `units` of verdict's own work (counted against the budget only). */
  work(units: number): void;
}

/**
 * A meter with a fixed budget, in the API server's units; verdict's own work is held to the same figure, counted
 * apart. Throws {@link CelBudgetExceeded} when an evaluation passes either. `cost` is what the API server would have
 * charged (the `spend` units).
 */
export class CelBudget implements CelMeter {
  private left: number;
  private workLeft: number;
  /** The API server's units spent. */
  cost = 0;
  /** Units of verdict's own work spent. */
  worked = 0;
  /** Made once: all()/exists() go on past an element's error, so it is thrown again for each element left. */
  #exceeded: CelBudgetExceeded | undefined;

  constructor(readonly limit: number) {
    this.left = limit;
    this.workLeft = limit;
  }

  spend(units: number): void {
    this.cost += units;
    this.left -= units;
    if (this.left < 0) throw (this.#exceeded ??= new CelBudgetExceeded(this.limit));
  }

  work(units: number): void {
    this.worked += units;
    this.workLeft -= units;
    if (this.workLeft < 0) throw (this.#exceeded ??= new CelBudgetExceeded(this.limit));
  }

}

/** A meter that never runs out. */
export const UNMETERED: CelMeter = { spend() {}, work() {} };
