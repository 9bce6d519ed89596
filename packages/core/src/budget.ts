/**
 * The cost meter of one evaluation. Work that grows with the input (iterating
 * a list, matching a pattern against a string, building a string) spends
 * units; when an evaluation has spent its budget, the meter throws
 * {@link BudgetExceeded} and the evaluation ends with a `BUDGET_EXCEEDED`
 * error in its decision. Units follow Kubernetes CEL's cost model: about one
 * unit per list element or map entry visited, one per ten characters scanned
 * or built (docs/security.md has the table). CEL spends two kinds of units
 * ({@link CostMeter}: the API server's and verdict's own work), each held to
 * the budget apart.
 */
import { VerdictError } from './errors.js';

/**
 * Default cost budget of one `PolicySet.evaluate` call, in units: the same
 * figure as Kubernetes' per-binding runtime CEL budget (`RuntimeCELCostBudget`),
 * roughly a second of work at worst, far above what realistic inputs need.
 */
export const DEFAULT_COST_BUDGET = 10_000_000;

/** Thrown by {@link CostMeter.spend} and {@link CostMeter.work} when an evaluation exceeds its budget; `evaluate` turns it into a decision error. */
export class BudgetExceeded extends VerdictError<'BUDGET_EXCEEDED'> {
  override readonly name = 'BudgetExceeded';
  /** The policy and rule that were running (set by the evaluator as the error passes). */
  policy?: { name: string; kind: string };
  rule?: string;

  constructor(readonly limit: number) {
    super('BUDGET_EXCEEDED', `the evaluation exceeded its cost budget of ${limit} units`);
  }
}

/**
 * Thrown by {@link CostMeter.within} when one part of an evaluation (a CEL expression, a policy) spent more than
 * its own limit while the evaluation's budget still had units: an error of that part (its policy's
 * `failurePolicy` decides), not the end of the evaluation. The message is the API server's for the same case.
 */
export class CostLimitExceeded extends VerdictError<'COST_LIMIT_EXCEEDED'> {
  override readonly name = 'CostLimitExceeded';

  constructor(readonly limit: number) {
    super('COST_LIMIT_EXCEEDED', 'operation cancelled: actual cost limit exceeded');
  }
}

/** Units for scanning or building `length` characters: 1 + one per ten characters. */
export function textCost(length: number): number {
  return 1 + ((length / 10) | 0);
}

/**
 * An evaluation's meter. Two kinds of units: `spend` (the API server's units for CEL, every unit of the other
 * rule languages) counts against the running part's limit ({@link CostMeter.within}) and the budget; `work`
 * (what verdict's CEL does where cel-go does nothing comparable: converting input, walking compared lists) is
 * held to the same budget, counted apart, and never against a part's limit.
 */
export class CostMeter {
  private left: number;
  private workLeft: number;
  /** Units of `spend` the running part may still spend (`within`); Infinity outside any. */
  private cap = Number.POSITIVE_INFINITY;
  /** The parts running ({@link CostMeter.within}), innermost last: the cap of the part around each when it started, and its limit. */
  readonly #parts: { before: number; readonly limit: number }[] = [];
  /** The error thrown once the budget is spent, made once: all()/exists() go on past an element's error, so it is thrown again per element. */
  #exceeded: BudgetExceeded | undefined;

  /** @param limit units this meter may spend (`Infinity`: unlimited) */
  constructor(readonly limit: number) {
    this.left = limit;
    this.workLeft = limit;
  }

  /** Spends `units` (≥ 0); throws {@link BudgetExceeded} once the total passes the limit (or the running part's limit). */
  spend(units: number): void {
    this.left -= units;
    this.cap -= units;
    if (this.left < 0 || this.cap < 0) throw this.exceeded();
  }

  /** Spends `units` (≥ 0) of work the running part's limit does not count; throws {@link BudgetExceeded} past the budget. */
  work(units: number): void {
    this.workLeft -= units;
    if (this.workLeft < 0) throw this.exceeded();
  }

  private exceeded(): BudgetExceeded {
    return (this.#exceeded ??= new BudgetExceeded(this.limit));
  }

  /** Spends {@link textCost}`(length)`: for scanning, matching or building a string of `length` characters. */
  spendText(length: number): void {
    this.spend(1 + ((length / 10) | 0));
  }

  /**
   * Runs `f(a, b)` allowed at most `limit` more units of `spend` (and never more than an enclosing part's limit has
   * left). Past the limit it ends with {@link CostLimitExceeded}; past the budget, with {@link BudgetExceeded} as
   * usual. What `f` spent is spent from the budget either way.
   */
  within<T, A = undefined, B = undefined>(limit: number, f: (a: A, b: B) => T, a?: A, b?: B): T {
    const before = this.cap;
    if (limit >= before) return before === Number.POSITIVE_INFINITY ? f(a as A, b as B) : this.#bounded(before, f, a, b);
    const part = { before, limit };
    this.#parts.push(part);
    this.cap = limit;
    let out: T | undefined;
    let failure: unknown;
    let threw = false;
    try {
      out = f(a as A, b as B);
    } catch (error) {
      threw = true;
      failure = error;
    } finally {
      this.#parts.pop();
    }
    // Past the limit the count went below zero (a budget error swallowed inside, say by all(), leaves it there too).
    const spent = limit - this.cap;
    // `part.before`: what the part around had, less what ran beside this one (`beside`).
    this.cap = part.before - Math.min(spent, limit);
    if (spent > limit) {
      // Every charge past the limit threw before its work (all() absorbs the error and goes on to charge the next
      // element, which throws again): what was done is at most the limit, and that is what the budget pays. The
      // error thrown inside was the limit's, not the budget's: the next one is made afresh.
      this.left += spent - limit;
      this.#exceeded = undefined;
      if (this.left >= 0) throw new CostLimitExceeded(limit);
    }
    if (this.left < 0 || this.workLeft < 0) throw this.exceeded();
    if (threw) throw failure;
    return out as T;
  }

  /**
   * {@link CostMeter.within} when the part around has less left (`before`) than the new part's limit: the part around's
   * limit is the one that holds, so an overspend is its error, not this part's. The part is still on the stack, so that
   * what runs {@link CostMeter.beside} it is charged to the part around (not to the part around that).
   */
  #bounded<T, A, B>(before: number, f: (a: A, b: B) => T, a?: A, b?: B): T {
    const part = { before, limit: before };
    this.#parts.push(part);
    try {
      return f(a as A, b as B);
    } finally {
      this.#parts.pop();
      // What this part spent came off the cap; what ran beside it, off `part.before`.
      this.cap = part.before - (before - this.cap);
    }
  }

  /**
   * Runs `f(a, b)` as a part of its own beside the running one, allowed `limit` units (see {@link CostMeter.within}):
   * what it spends counts against the part around the running one, not against the running one. A
   * ValidatingAdmissionPolicy's variable is computed when an expression first reads it; the API server holds it to a
   * limit of its own and charges it to the policy, not to the expression (admission/plugin/cel/composition.go).
   */
  beside<T, A = undefined, B = undefined>(limit: number, f: (a: A, b: B) => T, a?: A, b?: B): T {
    const part = this.#parts[this.#parts.length - 1];
    if (part === undefined) return this.within(limit, f, a, b);
    const running = this.cap;
    // What the part around the running one has left: its share when the running part started, less what that spent.
    const around = part.before - (part.limit - running);
    this.cap = around;
    try {
      return this.within(limit, f, a, b);
    } finally {
      // Infinity (no part around the running one) has nothing to take from (and Infinity - Infinity would be NaN).
      if (around !== Number.POSITIVE_INFINITY) part.before -= around - this.cap;
      this.cap = running;
    }
  }

  /** Units spent so far (`spend`'s; `work` is counted apart). */
  get spent(): number {
    return this.limit - this.left;
  }

  /** Units of `work` spent so far. */
  get worked(): number {
    return this.limit - this.workLeft;
  }
}

/** A meter that never runs out (load-time folding, `compileLogic` without a budget). */
export const UNMETERED: CostMeter = new CostMeter(Number.POSITIVE_INFINITY);
