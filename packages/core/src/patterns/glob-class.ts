/**
 * Bracket expressions of a glob segment (`[a-z]`, `[!abc]`, `[[:alpha:]]`),
 * read the way minimatch's `parseClass` reads them, compiled to a character
 * predicate for the NFA.
 */
import type { Node } from './nfa.js';

/** The characters JavaScript's `.` does not match. */
export const isLineTerminator = (c: number): boolean => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
export const regExpEscape = (s: string): string => s.replace(/[-[\]{}()*+?.,\\^$|#\s]/g, '\\$&');
export const text = (t: string): Node => ({ k: 'text', text: t });

type Test = (code: number) => boolean;
const property = (source: string): Test => {
  const re = new RegExp(`^[${source}]$`, 'u'); // one character against one class: no backtracking
  return (code) => re.test(String.fromCodePoint(code));
};
const POSIX: ReadonlyArray<[name: string, test: Test, unicode: boolean, negated: boolean]> = [
  ['[:alnum:]', property('\\p{L}\\p{Nl}\\p{Nd}'), true, false],
  ['[:alpha:]', property('\\p{L}\\p{Nl}'), true, false],
  ['[:ascii:]', (c) => c <= 0x7f, false, false],
  ['[:blank:]', property('\\p{Zs}\\t'), true, false],
  ['[:cntrl:]', property('\\p{Cc}'), true, false],
  ['[:digit:]', property('\\p{Nd}'), true, false],
  ['[:graph:]', property('\\p{Z}\\p{C}'), true, true],
  ['[:lower:]', property('\\p{Ll}'), true, false],
  ['[:print:]', property('\\p{C}'), true, true],
  ['[:punct:]', property('\\p{P}'), true, false],
  ['[:space:]', property('\\p{Z}\\t\\r\\n\\v\\f'), true, false],
  ['[:upper:]', property('\\p{Lu}'), true, false],
  ['[:word:]', property('\\p{L}\\p{Nl}\\p{Nd}\\p{Pc}'), true, false],
  ['[:xdigit:]', (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102), false, false],
];

const NEVER: Node = { k: 'never' };

/** A bracket expression at `pos` (minimatch's `parseClass`), or undefined when `[` is a literal. */
export function parseClass(glob: string, pos: number): { src: string; node: Node; unicode: boolean; consumed: number; magic: boolean } | undefined {
  // Each entry of `ranges` is one item minimatch would push; `single` marks a lone character.
  const ranges: Array<{ test: Test; single?: string }> = [];
  const negs: Test[] = [];
  let i = pos + 1;
  let sawStart = false;
  let unicode = false;
  let escaping = false;
  let negate = false;
  let endPos = pos;
  let rangeStart = '';
  const never = { src: '$.', node: NEVER, unicode: false, consumed: glob.length - pos, magic: true };
  scan: while (i < glob.length) {
    const c = glob.charAt(i);
    if ((c === '!' || c === '^') && i === pos + 1) {
      negate = true;
      i++;
      continue;
    }
    if (c === ']' && sawStart && !escaping) {
      endPos = i + 1;
      break;
    }
    sawStart = true;
    if (c === '\\' && !escaping) {
      escaping = true;
      i++;
      continue;
    }
    if (c === '[' && !escaping) {
      for (const [name, test, u, negated] of POSIX) {
        if (!glob.startsWith(name, i)) continue;
        if (rangeStart) return never;
        i += name.length;
        if (negated) negs.push(test);
        else ranges.push({ test });
        unicode ||= u;
        continue scan;
      }
    }
    escaping = false;
    const code = c.charCodeAt(0);
    if (rangeStart) {
      const lo = rangeStart.charCodeAt(0);
      if (c > rangeStart) ranges.push({ test: (x) => x >= lo && x <= code });
      else if (c === rangeStart) ranges.push({ test: (x) => x === code, single: c });
      rangeStart = '';
      i++;
      continue;
    }
    if (glob.startsWith('-]', i + 1)) {
      ranges.push({ test: (x) => x === code || x === 45 });
      i += 2;
      continue;
    }
    if (glob.startsWith('-', i + 1)) {
      rangeStart = c;
      i += 2;
      continue;
    }
    ranges.push({ test: (x) => x === code, single: c });
    i++;
  }
  if (endPos < i) return undefined;
  if (ranges.length === 0 && negs.length === 0) return never;
  const consumed = endPos - pos;
  const single = ranges.length === 1 && negs.length === 0 && !negate ? ranges[0]!.single : undefined;
  if (single !== undefined && !isLineTerminator(single.charCodeAt(0))) {
    return { src: regExpEscape(single), node: text(single), unicode: false, consumed, magic: false };
  }
  const inRanges: Test = (c) => ranges.some((r) => r.test(c));
  const inNegs: Test = (c) => negs.some((r) => r(c));
  let test: Test;
  if (ranges.length > 0 && negs.length > 0) test = negate ? (c) => !inRanges(c) || inNegs(c) : (c) => inRanges(c) || !inNegs(c);
  else if (ranges.length > 0) test = negate ? (c) => !inRanges(c) : inRanges;
  else test = negate ? inNegs : (c) => !inNegs(c);
  // Only the first character of the source matters to minimatch's later checks.
  const src = ranges.length > 0 && negs.length > 0 ? '([…]|[…])' : '[…]';
  return { src, node: { k: 'set', test }, unicode, consumed, magic: true };
}

