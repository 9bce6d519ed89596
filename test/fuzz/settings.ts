/**
 * Settings shared by the property-based tests: a fixed seed and a small number
 * of runs in the normal suite (seconds in total); `FUZZ_RUNS` and `FUZZ_SEED`
 * for a long run (`FUZZ_RUNS=20000 npx -y pnpm@10 fuzz`).
 */
import fc from 'fast-check';

const env = (name: string): number | undefined => {
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer (got "${value}")`);
  return n;
};

/** The seed every property uses, unless `FUZZ_SEED` gives another. */
export const SEED = env('FUZZ_SEED') ?? 20_260_921;
const RUNS = env('FUZZ_RUNS');

/** Runs `property` `runs` times (or `FUZZ_RUNS` times); a failure reports the seed and the shrunk counterexample. */
export function check<T>(property: fc.IProperty<T>, runs: number): void {
  fc.assert(property, { numRuns: RUNS ?? runs, seed: SEED });
}

/** The async form of {@link check}. */
export async function checkAsync<T>(property: fc.IAsyncProperty<T>, runs: number): Promise<void> {
  await fc.assert(property, { numRuns: RUNS ?? runs, seed: SEED });
}

/** A per-test timeout that grows with `FUZZ_RUNS`. */
export const TIMEOUT = RUNS ? Math.max(60_000, RUNS * 50) : 30_000;
