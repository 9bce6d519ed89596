/**
 * What CEL functions need while an expression runs: the evaluation's cost meter and a typed error.
 * Evaluation is synchronous, so the meter of the running expression is held here for its duration
 * ({@link withMeter}); library functions charge it the API server's units ({@link spend}) and verdict's own work
 * ({@link work}), each growing with the size of their input.
 */
import { CelError } from './errors.js';
import { UNMETERED, type CelMeter } from './meter.js';

/** What CEL functions spend from (the running expression's meter, or a count of one part's spending: {@link counted}). */
let current: CelMeter = UNMETERED;

/** Characters of verdict's string work that cost one unit of work (the ratio of cel-go's `StringTraversalCostFactor`, 0.1). */
export const CHARS_PER_UNIT = 10;

/**
 * Runs `f(a, b)` with `meter` as the meter CEL functions spend from; a budget exceeded inside a macro is
 * never lost. (`f` takes its arguments so that a call allocates no closure.)
 */
export function withMeter<T, A = undefined, B = undefined>(meter: CelMeter, f: (a: A, b: B) => T, a?: A, b?: B): T {
  const previous = current;
  current = meter;
  try {
    const result = f(a as A, b as B);
    // all()/exists() keep going past an element's error (CEL's commutative logic): a budget error
    // swallowed that way leaves the meter below zero, and spending nothing (of either kind) throws it again here.
    meter.spend(0);
    meter.work(0);
    return result;
  } finally {
    current = previous;
  }
}

/** What running `f` gave (its value or its error) and the units it spent from the running meter. */
export type Counted = ({ readonly value: unknown } | { readonly error: unknown }) & { readonly units: number; readonly work: number };

/** Runs `f(a)`, spending from the running meter as usual, and counts what it spent (to charge it again on reuse). */
export function counted<A>(f: (a: A) => unknown, a?: A): Counted {
  const outer = current;
  let units = 0;
  let work = 0;
  current = {
    spend(n: number) {
      units += n;
      outer.spend(n);
    },
    work(n: number) {
      work += n;
      outer.work(n);
    },
  };
  try {
    const value = f(a as A);
    return { value, units, work };
  } catch (error) {
    return { error, units, work };
  } finally {
    current = outer;
  }
}

/** Spends `units` of the API server's cost (cel-go's units, counted against limits) from the running expression's meter. */
export function spend(units: number): void {
  current.spend(units);
}

/** Spends `units` of verdict's own work (counted against the budget, never against the API server's limits; meter.ts). */
export function work(units: number): void {
  current.work(units);
}

/** Units spent converting JSON to CEL values in this process so far (values.ts); tests tell them from the rest. */
let conversionUnits = 0;

/**
 * Charges `units` of verdict's work for converting input to CEL values (values.ts), counted apart as well:
 * the planner converts where it reads and cel-js's activation is converted before the run, so the two spend
 * the same for everything else, and for conversion the planner at most what cel-js does (see the differential tests).
 */
export function workConversion(units: number): void {
  conversionUnits += units;
  current.work(units);
}

/** {@link workConversion}'s count so far (a process-wide total: tests take differences). */
export function convertedUnits(): number {
  return conversionUnits;
}

/**
 * Units for listing the keys of a plain-object map of `keys` keys (converting it, comparing it): one per key, and
 * four per key past {@link WIDE_MAP} keys. V8 keeps an object of more than about a thousand properties (JSON.parse
 * makes one for a map that wide) as a hash table, whose keys it sorts into insertion order to list them: in this
 * repository's bench (workload 6c) that costs tens of times more per key than listing a small map's.
 */
export function keyUnits(keys: number): number {
  return keys > WIDE_MAP ? keys * 4 : keys;
}

/** Keys past which a plain object is a hash table in V8 (its `kMaxNumberOfDescriptors`, 1,020, rounded down). */
export const WIDE_MAP = 1_000;

/** A run-time error raised by a CEL function (a Kubernetes library function refusing its input). */
export class CelRuntimeError extends CelError<'EVALUATION'> {
  override readonly name = 'CelRuntimeError';

  constructor(message: string) {
    super('EVALUATION', message);
  }
}

/** Throws a {@link CelRuntimeError}. */
export function fail(message: string): never {
  throw new CelRuntimeError(message);
}
