/**
 * Glob matching in linear time, with the semantics verdict has always had:
 * minimatch 10's `makeRe(pattern, {dot: true, nocomment: true, nonegate: true})`
 * (`*` and `?` stay within a path segment, `**` as a whole segment crosses
 * `/`, braces, classes, extglobs), and plain strings compared exactly.
 *
 * minimatch turns a glob into a backtracking RegExp, so `*a*a*a*a*b` against
 * a long run of `a` never finishes. Here a glob compiles once into either a
 * string test (exact names, and segments made of literals and `*`, matched
 * greedily piece by piece) or a Thompson-NFA program (`nfa.ts`); both cost
 * time linear in the input. minimatch stays a dev dependency: the reference
 * of the differential test.
 *
 * Refused at compile time (a load error for a pattern in a policy): `!(…)`
 * extglobs, patterns over {@link MAX_GLOB_LENGTH} characters, and braces
 * expanding to more than {@link MAX_GLOB_EXPANSIONS} patterns.
 */
import { expand } from 'brace-expansion';
import { isLineTerminator } from './glob-class.js';
import { compileSegment, dotSegmentAhead, literalText, NOT_DOT_SEGMENT, NOT_SLASH, type Piece } from './glob-segment.js';
import { PatternError } from './error.js';
import { LazyDfa } from './dfa.js';
import { Program, type Node } from './nfa.js';

/** A compiled matcher: true when the whole value matches. */
export type StringMatcher = (value: string) => boolean;

/** Longest glob accepted, in characters. */
export const MAX_GLOB_LENGTH = 1024;
/** Most patterns one glob may expand to through braces (`{a,b}{c,d}` is 4). */
export const MAX_GLOB_EXPANSIONS = 256;
/** Most NFA instructions one glob may compile to (all its brace expansions together). */
const MAX_PROGRAM = 20_000;

const GLOB_CHARS = /[*?[\]{}()!+@]/;
const GLOBSTAR = Symbol('globstar');
const SLASH: Node = { k: 'text', text: '/' };
/** minimatch's `**`: any characters but line terminators, never entering a `.` or `..` segment. */
const TWO_STAR: Node = { k: 'repeat', node: { k: 'seq', items: [NOT_DOT_SEGMENT, { k: 'set', test: (c) => !isLineTerminator(c) }] }, min: 0, many: true };

type Part = typeof GLOBSTAR | { literal: string } | Piece;

/** Whether a string contains glob syntax (otherwise it is compared exactly). */
export function isGlob(pattern: string): boolean {
  return GLOB_CHARS.test(pattern);
}

/** minimatch expands braces only when some `{` is followed by a `}` with no `{` or line break between. */
function hasBraces(pattern: string): boolean {
  let open = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charCodeAt(i);
    if (c === 123) open = true;
    else if (c === 125 && open) return true;
    else if (isLineTerminator(c)) open = false;
  }
  return false;
}

/** minimatch's optimisation level 1: repeated `**` collapse, and `..` removes the segment before it. */
function optimise(segments: string[]): string[] {
  const out: string[] = [];
  for (const s of segments) {
    const prev = out[out.length - 1];
    if (s === '**' && prev === '**') continue;
    if (s === '..' && prev !== undefined && prev !== '..' && prev !== '.' && prev !== '**') {
      out.pop();
      continue;
    }
    out.push(s);
  }
  return out.length === 0 ? [''] : out;
}

function part(segment: string): Part {
  if (segment === '**') return GLOBSTAR;
  if (segment === '') return { literal: '' };
  const piece = compileSegment(segment);
  return piece.magic ? piece : { literal: literalText(piece.node) };
}

const nodeOf = (p: Exclude<Part, typeof GLOBSTAR> | Node): Node => ('k' in p ? p : 'literal' in p ? { k: 'text', text: p.literal } : p.node);
const optional = (node: Node): Node => ({ k: 'repeat', node, min: 0, many: false });

/** One brace expansion's segments as one tree, with `**` placed the way minimatch's `makeRe` places it. */
function assemble(parts: Part[]): Node {
  const pp: Array<typeof GLOBSTAR | Node> = parts.map((p) => (p === GLOBSTAR ? p : nodeOf(p)));
  for (let i = 0; i < pp.length; i++) {
    const prev = pp[i - 1];
    const next = pp[i + 1];
    if (pp[i] !== GLOBSTAR || prev === GLOBSTAR) continue;
    if (prev === undefined) {
      if (next !== undefined && next !== GLOBSTAR) pp[i + 1] = { k: 'seq', items: [optional({ k: 'alt', items: [SLASH, { k: 'seq', items: [TWO_STAR, SLASH] }] }), next] };
      else pp[i] = TWO_STAR;
    } else if (next === undefined) {
      pp[i - 1] = { k: 'seq', items: [prev, optional({ k: 'alt', items: [SLASH, { k: 'seq', items: [SLASH, TWO_STAR] }] })] };
    } else if (next !== GLOBSTAR) {
      pp[i - 1] = { k: 'seq', items: [prev, { k: 'alt', items: [SLASH, { k: 'seq', items: [SLASH, TWO_STAR, SLASH] }] }, next] };
      pp[i + 1] = GLOBSTAR;
    }
  }
  const items: Node[] = [];
  for (const p of pp) {
    if (p === GLOBSTAR) continue;
    if (items.length > 0) items.push(SLASH);
    items.push(p);
  }
  return { k: 'seq', items };
}

/** Literal pieces around `*`s in one segment; undefined when the segment has anything else. */
function starPieces(p: Part): { pieces: string[]; guard: boolean; nonEmpty: boolean } | undefined {
  if (p === GLOBSTAR) return undefined;
  if ('literal' in p) return { pieces: [p.literal], guard: false, nonEmpty: false };
  const items: Node[] = [];
  const flatten = (n: Node): void => {
    if (n.k === 'seq') n.items.forEach(flatten);
    else items.push(n);
  };
  flatten(p.node);
  const pieces = [''];
  let guard = false;
  let nonEmpty = false;
  for (const item of items) {
    if (item === NOT_DOT_SEGMENT) guard = true;
    else if (item.k === 'text') pieces[pieces.length - 1] += item.text;
    else if (item.k === 'repeat' && item.node === NOT_SLASH) {
      nonEmpty ||= item.min === 1;
      pieces.push('');
    } else return undefined;
  }
  return { pieces, guard, nonEmpty };
}

/** `value[from, to)` (no `/`) against literal pieces separated by `*`, leftmost-first: linear, no backtracking. */
function matchPieces(value: string, from: number, to: number, pieces: readonly string[]): boolean {
  const first = pieces[0]!;
  if (pieces.length === 1) return to - from === first.length && value.startsWith(first, from);
  const last = pieces[pieces.length - 1]!;
  const end = to - last.length;
  if (end < from + first.length || !value.startsWith(first, from) || !value.startsWith(last, end)) return false;
  let at = from + first.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i]!;
    const found = value.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}

/** The string fast path for one expansion without `**`, classes, `?` or extglobs. */
function fastMatcher(parts: readonly Part[]): StringMatcher | undefined {
  const segments = parts.map(starPieces);
  if (segments.some((s) => s === undefined)) return undefined;
  const segs = segments as Array<NonNullable<ReturnType<typeof starPieces>>>;
  if (segs.every((s) => s.pieces.length === 1)) {
    const exact = segs.map((s) => s.pieces[0]).join('/');
    return (value) => value === exact;
  }
  const guard = segs[0]!.guard;
  return (value) => {
    if (guard && dotSegmentAhead(value, 0)) return false;
    let from = 0;
    for (let i = 0; i < segs.length; i++) {
      const last = i === segs.length - 1;
      const slash = value.indexOf('/', from);
      if (last ? slash >= 0 : slash < 0) return false;
      const to = last ? value.length : slash;
      const seg = segs[i]!;
      if (seg.nonEmpty && to === from) return false;
      if (!matchPieces(value, from, to, seg.pieces)) return false;
      from = to + 1;
    }
    return true;
  };
}

function compile(pattern: string): StringMatcher {
  if (pattern.length > MAX_GLOB_LENGTH) throw new PatternError(`glob pattern is ${pattern.length} characters long; the limit is ${MAX_GLOB_LENGTH}`);
  if (!isGlob(pattern)) return (value) => value === pattern;
  const expansions = hasBraces(pattern) ? [...new Set(expand(pattern, { max: MAX_GLOB_EXPANSIONS + 1, maxSteps: 200_000 }))] : [pattern];
  if (expansions.length > MAX_GLOB_EXPANSIONS) throw new PatternError(`glob "${pattern}" expands to more than ${MAX_GLOB_EXPANSIONS} patterns through its braces`);
  const sets = expansions.map((p) => optimise(p.split(/\/+/)).map(part));
  if (sets.length === 1) {
    const fast = fastMatcher(sets[0]!);
    if (fast) return fast;
  }
  const unicode = sets.some((parts) => parts.some((p) => p !== GLOBSTAR && 'unicode' in p && p.unicode));
  const root: Node = sets.length === 1 ? assemble(sets[0]!) : { k: 'alt', items: sets.map(assemble) };
  const program = new Program(root, unicode);
  if (program.length > MAX_PROGRAM) throw new PatternError(`glob "${pattern}" is too complex (${program.length} states; the limit is ${MAX_PROGRAM})`);
  const dfa = new LazyDfa(program);
  const matcher: StringMatcher = (value) => dfa.test(value);
  PROGRAMS.set(matcher, program);
  return matcher;
}

/** The NFA program behind a matcher (absent for the string fast paths): lets the tests check the work bound and the cache. */
export const PROGRAMS = new WeakMap<StringMatcher, Program>();

const cache = new Map<string, StringMatcher>();

/**
 * A matcher for one pattern, compiled once and cached process-wide (bounded).
 * Throws {@link PatternError} for a pattern verdict refuses (see the module notes).
 */
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
