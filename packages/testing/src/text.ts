import type { LinearRegex } from '@verdict/core';

/**
 * Small text helpers shared by the matchers, the suite runner and the CLI:
 * message expectations (substring or regular expression), compact one-line
 * renderings of values, and deep equality for plain data.
 */

/**
 * What a message must look like: a string is a case-sensitive substring, a
 * regular expression is tested as is (unanchored, like `gator verify`'s
 * `message`). In suite files a regular expression is written
 * `{regex: "...", flags: "i"}` and compiled with core's `compileRegex` (RE2
 * syntax, linear time, as Gatekeeper's Go regexp); in code a JavaScript
 * `RegExp` works too.
 */
export type TextExpectation = string | RegExp | LinearRegex;

/** True when `text` satisfies `expected`. */
export function textMatches(text: string, expected: TextExpectation): boolean {
  if (typeof expected === 'string') return text.includes(expected);
  if (expected instanceof RegExp) expected.lastIndex = 0;
  return expected.test(text);
}

/** A compiled linear regex (`{pattern, flags, test}`), told apart from a JavaScript RegExp. */
export function isLinearRegex(value: unknown): value is LinearRegex {
  return typeof value === 'object' && value !== null && !(value instanceof RegExp) && typeof (value as LinearRegex).pattern === 'string' && typeof (value as LinearRegex).test === 'function';
}

/** `/pattern/flags` for either kind of regular expression. */
export function regexText(re: RegExp | LinearRegex): string {
  return re instanceof RegExp ? String(re) : `/${re.pattern}/${re.flags}`;
}

/** `"memory"` for substrings, `/^deny/i` for regular expressions. */
export function describeText(expected: TextExpectation): string {
  return typeof expected === 'string' ? JSON.stringify(expected) : regexText(expected);
}

const PLAIN = /^[A-Za-z0-9_./@-][A-Za-z0-9_./@:+ -]*$/;
const KEYWORD = /^(true|false|null|~|yes|no|on|off|-?\d[\d_.eE+-]*)$/i;

/**
 * Renders plain data on one line in YAML flow style (`{limit: 32Gi, teams: [a, b]}`),
 * cut to `max` characters (default 200) with `…`.
 */
export function inline(value: unknown, max = 200): string {
  const text = render(value, 0);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function render(value: unknown, depth: number): string {
  if (value === undefined) return '(none)';
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (typeof value === 'string') return PLAIN.test(value) && !KEYWORD.test(value) && !value.endsWith(' ') ? value : JSON.stringify(value);
  if (value instanceof RegExp || isLinearRegex(value)) return regexText(value);
  if (depth > 6) return '…';
  if (Array.isArray(value)) return `[${value.map((v) => render(v, depth + 1)).join(', ')}]`;
  if (typeof value === 'object') {
    const parts = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${render(k, depth + 1)}: ${render(v, depth + 1)}`);
    return `{${parts.join(', ')}}`;
  }
  return String(value);
}

/** Structural equality for JSON-like data (key order does not matter; `undefined` keys are ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Indents every line of `text` by `spaces`. */
export function indent(text: string, spaces = 2): string {
  const pad = ' '.repeat(spaces);
  return text.split('\n').map((line) => (line ? pad + line : line)).join('\n');
}

/** A bullet list (`  - a`) or `(none)`. */
export function bullets(items: readonly string[]): string {
  return items.length ? items.map((item) => `  - ${item}`).join('\n') : '  (none)';
}
