/**
 * Regular expressions on a linear-time engine with RE2 semantics: the one `@verdict/cel` runs CEL's
 * `matches` on (re2js, pure JavaScript), so json-logic's `regex`, adapters' matchers and CEL agree on every
 * pattern. Backtracking (JavaScript's RegExp) is never used on input, so a hostile string costs time
 * proportional to its length, never exponential. Here a refused pattern is a {@link PatternError}.
 */
import { compileRegex as compileLinear, RegexError, type LinearRegex } from '@verdict/cel/internal';
import { PatternError } from './error.js';

export type { LinearRegex };

/**
 * Compiles `pattern` (RE2 syntax; flags any of `i`, `m`, `s`, `u`) once and caches it process-wide
 * (bounded). Throws {@link PatternError} saying why the pattern is refused (backreferences and lookaround
 * are, with a hint).
 */
export function compileRegex(pattern: string, flags = ''): LinearRegex {
  try {
    return compileLinear(pattern, flags);
  } catch (error) {
    if (error instanceof RegexError) throw new PatternError(error.message);
    throw error;
  }
}
