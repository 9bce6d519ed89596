/**
 * What a CEL evaluation spends its cost from. Any object with `spend` will do (a policy engine passes its
 * own meter, whose overrun error then comes out of the evaluation unchanged); {@link CelBudget} is the
 * plain one `compileCel` uses.
 */
import { CelBudgetExceeded } from './errors.js';

/** A cost meter: `spend(units)` throws once the evaluation is over its budget. */
export interface CelMeter {
  spend(units: number): void;
}

/** A meter with a fixed limit, in cost units; throws {@link CelBudgetExceeded} when an evaluation passes it. */
export class CelBudget implements CelMeter {
  private left: number;
  /** Made once: all()/exists() go on past an element's error, so it is thrown again for each element left. */
  #exceeded: CelBudgetExceeded | undefined;

  constructor(readonly limit: number) {
    this.left = limit;
  }

  spend(units: number): void {
    this.left -= units;
    if (this.left < 0) throw (this.#exceeded ??= new CelBudgetExceeded(this.limit));
  }

  /** Units spent so far. */
  get spent(): number {
    return this.limit - this.left;
  }
}

/** A meter that never runs out. */
export const UNMETERED: CelMeter = { spend() {} };
