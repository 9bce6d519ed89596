/**
 * Regular expressions: `matches` (CEL standard) and the Kubernetes regex library (`find`, `findAll`),
 * all on the package's linear-time RE2 engine (src/regex.ts), never JavaScript's RegExp on input.
 */
import { compileRegex } from '../regex.js';
import { DECLINE } from '../ast.js';
import { fail, spend, work } from '../runtime.js';
import { regexUnits, stringSize, workOver } from './costed.js';
import type { CelLibrary } from './index.js';

function regex(pattern: string) {
  try {
    return compileRegex(pattern);
  } catch (error) {
    return fail((error as Error).message);
  }
}

/**
 * Spends the API server's units for matching `value` against `pattern` (cel-go's `matches`, Kubernetes' `find`
 * and `findAll`): the string scanned, one unit per ten code points of it plus one, rounded up, times the
 * pattern's length over four, rounded up (their guess at its number of expressions); returns those units.
 */
function spendMatch(value: string, pattern: string): number {
  const units = regexUnits(stringSize(value), stringSize(pattern));
  spend(units);
  return units;
}

function matches(value: unknown, pattern: unknown): boolean | typeof DECLINE {
  if (typeof value !== 'string' || typeof pattern !== 'string') return DECLINE;
  spendMatch(value, pattern);
  return regex(pattern).test(value);
}

/**
 * The global form `matches(value, pattern)`: its overload (`matches`, not the method's `matches_string`) is not in
 * cel-go's cost switch, so the API server charges it its default one unit; the match is verdict's work.
 */
function matchesGlobal(value: string, pattern: string): boolean {
  spend(1);
  work(regexUnits(stringSize(value), stringSize(pattern)));
  return regex(pattern).test(value);
}

function findAll(value: string, pattern: string, limit: bigint): string[] {
  // An empty pattern costs nothing upstream, yet matches between every two characters: that list is verdict's work.
  if (spendMatch(value, pattern) === 0) workOver(value.length + 1);
  const n = limit < 0n ? -1 : limit > 2_147_483_647n ? 2_147_483_647 : Number(limit);
  return regex(pattern).findAll(value, n);
}

export const regexLibrary: CelLibrary = {
  name: 'regex',
  register(env) {
    env.registerFunction('matches(string, string): bool', matchesGlobal);
    env.registerFunction('string.find(string): string', (value: string, pattern: string) => {
      spendMatch(value, pattern);
      return regex(pattern).find(value) ?? '';
    });
    env.registerFunction('string.findAll(string): list<string>', (value: string, pattern: string) => findAll(value, pattern, -1n));
    env.registerFunction('string.findAll(string, int): list<string>', findAll);
  },
  overrides: {
    '.matches/1': ([value, pattern]) => matches(value, pattern),
  },
};
