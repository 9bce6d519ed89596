/**
 * Regular expressions on a linear-time engine with RE2 semantics (re2js, pure
 * JavaScript). Every place where a pattern meets input goes through here:
 * CEL's `matches`/`find`/`findAll` and the format library here; verdict's core wraps it for json-logic's
 * `regex` and adapters' matchers.
 * Backtracking (JavaScript's RegExp) is never used on input, so a hostile
 * string costs time proportional to its length, never exponential.
 */
import { RE2JS } from 're2js';
import { RegexError } from './errors.js';

/** A compiled regular expression whose every operation runs in time linear in the input. */
export interface LinearRegex {
  /** The pattern as written. */
  readonly pattern: string;
  /** The flags it was compiled with (any of `i`, `m`, `s`, `u`). */
  readonly flags: string;
  /** Whether the pattern matches anywhere in `value` (RE2 `PartialMatch`, CEL `matches`). */
  test(value: string): boolean;
  /** The first match, or `null` (Kubernetes CEL `find`). */
  find(value: string): string | null;
  /** Every non-overlapping match, at most `limit` of them when `limit` ≥ 0 (Kubernetes CEL `findAll`). */
  findAll(value: string, limit?: number): string[];
}

/** Longest regular expression accepted, in characters. */
export const MAX_REGEX_LENGTH = 1000;
const FLAG_BITS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL, u: 0 };
const cache = new Map<string, LinearRegex>();

const LINEAR = 'cannot run in linear time, so RE2 (and Gatekeeper, Kubernetes CEL, verdict) does not support them';

/** Why RE2 refuses a pattern, in words a policy author can act on (RE2's messages quote the offending part in backquotes). */
function hint(message: string): string {
  if (/`\\[1-9k]/.test(message)) return `; backreferences ${LINEAR}`;
  if (/`\(\?<?[=!]/.test(message)) return `; lookahead and lookbehind ${LINEAR}`;
  if (/`\\u/.test(message)) return '; RE2 writes a code point as \\x{00e9} (JavaScript\'s \\u00e9 is not RE2 syntax)';
  if (/`\\c/.test(message)) return '; RE2 writes a control character as \\x01 (JavaScript\'s \\cA is not RE2 syntax)';
  if (/`\\Z/.test(message)) return '; RE2 writes the end of the text as \\z or $';
  if (/`\[\^\]`/.test(message)) return '; to match any character including a newline write (?s:.) or [\\s\\S]';
  if (/`(\+\+|\*\+|\?\+|\}\+)`/.test(message)) return `; possessive quantifiers are not RE2 syntax (and not needed: RE2 never backtracks)`;
  return '';
}

function compile(pattern: string, flags: string): LinearRegex {
  if (pattern.length > MAX_REGEX_LENGTH) throw new RegexError(`regular expression is ${pattern.length} characters long; the limit is ${MAX_REGEX_LENGTH}`);
  let bits = 0;
  for (const f of flags) {
    const bit = FLAG_BITS[f];
    if (bit === undefined) throw new RegexError(`regular expression flags "${flags}" are not supported; use any of i, m, s, u`);
    bits |= bit;
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern, bits);
  } catch (error) {
    const message = (error as Error).message.replace(/^error parsing regexp: /, '');
    throw new RegexError(`invalid regular expression /${pattern}/: ${message}${hint(message)}`);
  }
  return {
    pattern,
    flags,
    test: (value) => re.matcher(value).find(),
    find: (value) => {
      const m = re.matcher(value);
      return m.find() ? m.group() : null;
    },
    findAll: (value, limit = -1) => {
      const out: string[] = [];
      if (limit === 0) return out;
      const m = re.matcher(value);
      while (m.find()) {
        out.push(m.group() ?? '');
        if (limit > 0 && out.length >= limit) break;
      }
      return out;
    },
  };
}

/**
 * Compiles `pattern` (RE2 syntax; flags any of `i`, `m`, `s`, `u`) once and
 * caches it process-wide (bounded). Throws {@link RegexError} saying why
 * the pattern is refused (backreferences and lookaround are, with a hint).
 */
export function compileRegex(pattern: string, flags = ''): LinearRegex {
  const key = `${flags}/${pattern}`;
  let re = cache.get(key);
  if (!re) {
    re = compile(pattern, flags);
    if (cache.size >= 10_000) cache.clear();
    cache.set(key, re);
  }
  return re;
}
