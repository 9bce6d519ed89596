/**
 * One path segment of a glob (no `/`), compiled to an NFA tree with the
 * semantics minimatch 10 gives it with `{dot: true}`: `*` and `?` never match
 * `/`, `[...]` classes with POSIX names and `!`/`^` negation, `\` escapes,
 * and the extglobs `@(a|b)`, `?(a|b)`, `*(a|b)`, `+(a|b)`. The structure of
 * this file follows minimatch's own segment parser (its `AST` class and
 * `parseClass`) closely, so that corner cases agree; `src` keeps the RegExp
 * source minimatch would build, because minimatch decides some things (the
 * "not `.` or `..`" guard, empty extglobs) by looking at that text.
 *
 * Refused, with a load error: negated extglobs `!(a|b)`, which minimatch runs
 * as a RegExp lookahead over the rest of the segment and no linear matcher
 * reproduces; and an empty extglob nested in another (`@(@())`), which
 * minimatch turns into an invalid RegExp.
 */
import { PatternError } from './error.js';
import { parseClass, regExpEscape, text } from './glob-class.js';
import type { Node } from './nfa.js';

type ExtType = '!' | '?' | '+' | '*' | '@';
const EXT_TYPES = new Set(['!', '?', '+', '*', '@']);
const RE_SPECIALS = new Set('().*{}+?[]^$\\!');
const START_SOURCES = new Set(['[', '.']);

/** A compiled piece: minimatch's RegExp source for it, our tree, and its flags. */
export interface Piece {
  src: string;
  node: Node;
  magic: boolean;
  unicode: boolean;
}

export const NOT_SLASH: Node = { k: 'set', test: (c) => c !== 47 };
const STAR: Node = { k: 'repeat', node: NOT_SLASH, min: 0, many: true };
const STAR_NO_EMPTY: Node = { k: 'repeat', node: NOT_SLASH, min: 1, many: true };

/** Whether `.` or `..` followed by the end or `/` starts at `from`. */
function dotsAt(text: string, from: number): boolean {
  if (text.charCodeAt(from) !== 46) return false;
  if (from + 1 >= text.length) return true;
  const next = text.charCodeAt(from + 1);
  if (next === 47) return true;
  return next === 46 && (from + 2 >= text.length || text.charCodeAt(from + 2) === 47);
}

/** At `at`, a `.` or `..` path segment starts (at the start of the text, or right after a `/` at `at`). */
export function dotSegmentAhead(text: string, at: number): boolean {
  return (at === 0 && dotsAt(text, 0)) || (text.charCodeAt(at) === 47 && dotsAt(text, at + 1));
}

/** minimatch's `(?!(?:^|/)\.\.?(?:$|/))`: no `.` or `..` segment starts here. */
export const NOT_DOT_SEGMENT: Node = { k: 'assert', test: (text, at) => !dotSegmentAhead(text, at) };

const seq = (items: Node[]): Node => (items.length === 1 ? items[0]! : { k: 'seq', items });

class Ast {
  parts: Array<string | Ast> = [];
  readonly index: number;

  constructor(public type: ExtType | null, readonly parent?: Ast) {
    this.index = parent ? parent.parts.length : 0;
  }

  push(...parts: Array<string | Ast>): void {
    for (const p of parts) if (p !== '') this.parts.push(p);
  }

  isStart(): boolean {
    if (!this.parent) return true;
    return this.parent.isStart() && this.index === 0;
  }

  isEnd(): boolean {
    const parent = this.parent;
    if (!parent) return true;
    if (!parent.isEnd()) return false;
    if (!this.type) return true;
    return this.index === parent.parts.length - 1;
  }

  toString(): string {
    const inner = this.parts.map(String);
    return this.type ? `${this.type}(${inner.join('|')})` : inner.join('');
  }
}

/** Scans `str` from `pos` into `ast`, as minimatch's `AST.#parseAST` does; returns the position reached. */
function parseAst(str: string, ast: Ast, pos: number): number {
  let escaping = false;
  let inBrace = false;
  let braceStart = -1;
  let braceNeg = false;
  let acc = '';
  /** Shared by both modes: escapes and bracket expressions are copied as they are. */
  const literal = (c: string, i: number): boolean => {
    if (escaping || c === '\\') {
      escaping = !escaping;
      acc += c;
      return true;
    }
    if (inBrace) {
      if (i === braceStart + 1) {
        if (c === '^' || c === '!') braceNeg = true;
      } else if (c === ']' && !(i === braceStart + 2 && braceNeg)) inBrace = false;
      acc += c;
      return true;
    }
    if (c === '[') {
      inBrace = true;
      braceStart = i;
      braceNeg = false;
      acc += c;
      return true;
    }
    return false;
  };
  /** An extglob starting at `i` (its `(`), parsed into `holder` after the text read so far. */
  const extglob = (holder: Ast, c: string, i: number): number => {
    holder.push(acc);
    acc = '';
    const ext = new Ast(c as ExtType, holder);
    const end = parseAst(str, ext, i);
    holder.push(ext);
    return end;
  };
  if (ast.type === null) {
    let i = pos;
    while (i < str.length) {
      const c = str.charAt(i++);
      if (literal(c, i)) continue;
      if (EXT_TYPES.has(c) && str.charAt(i) === '(') i = extglob(ast, c, i);
      else acc += c;
    }
    ast.push(acc);
    return i;
  }
  let i = pos + 1;
  let part = new Ast(null, ast);
  const alternatives: Ast[] = [];
  while (i < str.length) {
    const c = str.charAt(i++);
    if (literal(c, i)) continue;
    if (EXT_TYPES.has(c) && str.charAt(i) === '(') {
      i = extglob(part, c, i);
      continue;
    }
    if (c === '|') {
      part.push(acc);
      acc = '';
      alternatives.push(part);
      part = new Ast(null, ast);
      continue;
    }
    if (c === ')') {
      part.push(acc);
      ast.push(...alternatives, part);
      return i;
    }
    acc += c;
  }
  // Unclosed: the extglob is plain text (still a glob: `*(a` has a star).
  ast.type = null;
  ast.parts = [str.substring(pos - 1)];
  return i;
}

/** A compiled piece of a glob string (no extglobs): stars, `?`, classes, escapes, literals. */
function globPiece(glob: string, noEmpty: boolean): Piece {
  let escaping = false;
  let inStar = false;
  let src = '';
  let magic = false;
  let unicode = false;
  let literal = '';
  const nodes: Node[] = [];
  const flush = () => {
    if (literal) nodes.push(text(literal));
    literal = '';
  };
  const allStars = /^[*]+$/.test(glob);
  for (let i = 0; i < glob.length; i++) {
    const c = glob.charAt(i);
    if (escaping) {
      escaping = false;
      // minimatch leaves an escaped `|` unescaped in its RegExp (an alternation); we keep it a literal.
      src += (RE_SPECIALS.has(c) ? '\\' : '') + c;
      literal += c;
      continue;
    }
    if (c === '*') {
      if (inStar) continue;
      inStar = true;
      const noEmptyStar = noEmpty && allStars;
      src += noEmptyStar ? '[^/]+?' : '[^/]*?';
      flush();
      nodes.push(noEmptyStar ? STAR_NO_EMPTY : STAR);
      magic = true;
      continue;
    }
    inStar = false;
    if (c === '\\') {
      if (i === glob.length - 1) {
        src += '\\\\';
        literal += '\\';
      } else escaping = true;
      continue;
    }
    if (c === '[') {
      const cls = parseClass(glob, i);
      if (cls) {
        src += cls.src;
        flush();
        nodes.push(cls.node);
        unicode ||= cls.unicode;
        magic ||= cls.magic;
        i += cls.consumed - 1;
        continue;
      }
    }
    if (c === '?') {
      src += '[^/]';
      flush();
      nodes.push(NOT_SLASH);
      magic = true;
      continue;
    }
    src += regExpEscape(c);
    literal += c;
  }
  flush();
  return { src, node: seq(nodes), magic, unicode };
}

/** minimatch's `toRegExpSource` for a parsed node (with `dot: true`). */
function compileAst(ast: Ast): Piece {
  if (!ast.type) {
    const noEmpty = ast.isStart() && ast.isEnd() && ast.parts.every((p) => typeof p === 'string');
    const pieces = ast.parts.map((p) => (typeof p === 'string' ? globPiece(p, noEmpty) : compileAst(p)));
    let src = pieces.map((p) => p.src).join('');
    const nodes = pieces.map((p) => p.node);
    const first = ast.parts[0];
    if (ast.isStart() && typeof first === 'string' && !(ast.parts.length === 1 && (first === '.' || first === '..'))) {
      const guard = START_SOURCES.has(src.charAt(0))
        || (src.startsWith('\\.') && START_SOURCES.has(src.charAt(2)))
        || (src.startsWith('\\.\\.') && START_SOURCES.has(src.charAt(4)));
      if (guard) {
        src = `(?!…)${src}`;
        nodes.unshift(NOT_DOT_SEGMENT);
      }
    }
    return { src, node: seq(nodes), magic: pieces.some((p) => p.magic), unicode: pieces.some((p) => p.unicode) };
  }
  if (ast.type === '!') {
    throw new PatternError(`the negated extglob "${ast.toString()}" is not supported: it needs a lookahead, which no linear-time matcher runs; list the names to exclude in a separate rule (e.g. "not" + "glob")`);
  }
  const whole = ast.isStart() && ast.isEnd();
  const alternatives = ast.parts.map((p) => compileAst(p as Ast)).filter((p) => !whole || p.src !== '');
  const body = alternatives.map((p) => p.src).join('|');
  if (whole && body === '') {
    if (ast.parent?.parent) throw new PatternError(`the empty extglob "${ast.toString()}" inside another extglob is not supported`);
    const literal = ast.toString();
    return { src: literal, node: text(literal), magic: false, unicode: false };
  }
  const choice: Node = { k: 'alt', items: alternatives.map((p) => p.node) };
  const close = ast.type === '@' ? ')' : `)${ast.type}`;
  const node: Node = ast.type === '@' ? choice : { k: 'repeat', node: choice, min: ast.type === '+' ? 1 : 0, many: ast.type !== '?' };
  return { src: `(?:${body}${close}`, node, magic: true, unicode: alternatives.some((p) => p.unicode) };
}

/** Compiles one segment (no `/`, not `**`, not empty) as minimatch would. */
export function compileSegment(segment: string): Piece {
  const root = new Ast(null);
  parseAst(segment, root, 0);
  return compileAst(root);
}

/** The text a segment without magic matches exactly. */
export function literalText(node: Node): string {
  if (node.k === 'text') return node.text;
  if (node.k === 'seq') return node.items.map(literalText).join('');
  throw new Error('not a literal');
}
