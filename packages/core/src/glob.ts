/**
 * Glob matching (minimatch semantics, `dot: true`, no negation or comments),
 * compiled once per pattern. Plain names and simple `prefix*` / `*suffix`
 * patterns take a string fast path; everything else runs minimatch's RegExp.
 */
import { makeRe } from 'minimatch';

export type StringMatcher = (value: string) => boolean;

const GLOB_CHARS = /[*?[\]{}()!+@]/;
const OPTIONS = { dot: true, nocomment: true, nonegate: true } as const;
const MAX_PATTERN_LENGTH = 1024;

/** Whether a string contains glob syntax (otherwise it is compared exactly). */
export function isGlob(pattern: string): boolean {
  return GLOB_CHARS.test(pattern);
}

function compile(pattern: string): StringMatcher {
  if (pattern.length > MAX_PATTERN_LENGTH) throw new Error(`glob pattern is ${pattern.length} characters long; the limit is ${MAX_PATTERN_LENGTH}`);
  if (!isGlob(pattern)) return (value) => value === pattern;
  const star = pattern.indexOf('*');
  if (star === pattern.length - 1 && !isGlob(pattern.slice(0, -1)) && !pattern.endsWith('**')) {
    const prefix = pattern.slice(0, -1);
    return (value) => value.startsWith(prefix) && !value.includes('/', prefix.length);
  }
  if (star === 0 && pattern.lastIndexOf('*') === 0 && !isGlob(pattern.slice(1))) {
    const suffix = pattern.slice(1);
    return (value) => value.endsWith(suffix) && !value.slice(0, value.length - suffix.length).includes('/');
  }
  const re = makeRe(pattern, OPTIONS);
  if (re === false) return (value) => value === pattern;
  return (value) => re.test(value);
}

const cache = new Map<string, StringMatcher>();

/** A matcher for one pattern, compiled once and cached process-wide (bounded). */
export function globMatcher(pattern: string): StringMatcher {
  let m = cache.get(pattern);
  if (!m) {
    m = compile(pattern);
    if (cache.size >= 10_000) cache.clear();
    cache.set(pattern, m);
  }
  return m;
}

/** A matcher that accepts a value when any of the patterns matches. An empty list matches nothing. */
export function anyGlobMatcher(patterns: readonly string[]): StringMatcher {
  if (patterns.length === 0) return () => false;
  if (patterns.length === 1) return globMatcher(patterns[0]!);
  const exact = new Set<string>();
  const globs: StringMatcher[] = [];
  for (const p of patterns) {
    if (isGlob(p)) globs.push(globMatcher(p));
    else exact.add(p);
  }
  if (globs.length === 0) return (value) => exact.has(value);
  return (value) => {
    if (exact.has(value)) return true;
    for (let i = 0; i < globs.length; i++) if (globs[i]!(value)) return true;
    return false;
  };
}
