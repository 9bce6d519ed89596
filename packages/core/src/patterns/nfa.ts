/**
 * A small Thompson-NFA matcher (a Pike VM without captures) for the glob
 * compiler. A pattern becomes a list of instructions once; a test walks the
 * input once, carrying the set of live instructions, so it costs at most
 * (input length + 1) × (program length) steps whatever the pattern and input:
 * there is no backtracking. Zero-width assertions look at a bounded window
 * around the position (glob's "not a `.` or `..` segment" checks), so they
 * keep the bound.
 *
 * Hand-written rather than RE2 because globs need those assertions, which
 * RE2 syntax cannot express, and because a glob program is tiny.
 */

/** A pattern tree, built by the glob compiler. */
export type Node =
  | { readonly k: 'text'; readonly text: string }
  | { readonly k: 'set'; readonly test: (code: number) => boolean }
  | { readonly k: 'seq'; readonly items: readonly Node[] }
  | { readonly k: 'alt'; readonly items: readonly Node[] }
  | { readonly k: 'repeat'; readonly node: Node; readonly min: 0 | 1; readonly many: boolean }
  | { readonly k: 'assert'; readonly test: (text: string, at: number) => boolean }
  | { readonly k: 'never' };

const CHAR = 0;
const SET = 1;
const SPLIT = 2;
const JUMP = 3;
const ASSERT = 4;
const MATCH = 5;
const FAIL = 6;

/** Counts VM steps (live instructions visited), for the tests that prove the bound. */
export const vmStats = { steps: 0 };

/** A compiled program: `test` is true when the whole input matches. */
export class Program {
  private readonly op: Uint8Array;
  private readonly a: Int32Array;
  private readonly b: Int32Array;
  private readonly sets: Array<(code: number) => boolean>;
  private readonly asserts: Array<(text: string, at: number) => boolean>;
  private readonly size: number;
  private readonly marks: Uint32Array;
  private readonly stack: Int32Array;
  private readonly current: Int32Array;
  private readonly next: Int32Array;
  private generation = 0;
  /** The text being tested (for assertions). */
  private text = '';

  /** @param unicode step through code points (RegExp `u`) instead of UTF-16 code units */
  constructor(root: Node, readonly unicode: boolean) {
    const op: number[] = [];
    const a: number[] = [];
    const b: number[] = [];
    this.sets = [];
    this.asserts = [];
    const emit = (code: number, x = 0, y = 0): number => {
      op.push(code);
      a.push(x);
      b.push(y);
      return op.length - 1;
    };
    const build = (node: Node): void => {
      switch (node.k) {
        case 'text':
          // One instruction per character: code points in unicode mode, UTF-16 code units otherwise.
          for (let i = 0; i < node.text.length; ) {
            const code = unicode ? node.text.codePointAt(i)! : node.text.charCodeAt(i);
            emit(CHAR, code);
            i += unicode && code > 0xffff ? 2 : 1;
          }
          return;
        case 'set':
          this.sets.push(node.test);
          emit(SET, this.sets.length - 1);
          return;
        case 'assert': {
          let index = this.asserts.indexOf(node.test);
          if (index < 0) index = this.asserts.push(node.test) - 1;
          emit(ASSERT, index);
          return;
        }
        case 'never':
          emit(FAIL);
          return;
        case 'seq':
          for (const item of node.items) build(item);
          return;
        case 'alt': {
          if (node.items.length === 0) return;
          const jumps: number[] = [];
          for (let i = 0; i < node.items.length; i++) {
            const last = i === node.items.length - 1;
            const split = last ? -1 : emit(SPLIT);
            if (split >= 0) a[split] = split + 1;
            build(node.items[i]!);
            if (!last) {
              jumps.push(emit(JUMP));
              b[split] = op.length;
            }
          }
          for (const j of jumps) a[j] = op.length;
          return;
        }
        case 'repeat': {
          // min 1: body, then loop back (many) or go on; min 0: optional body, looping when many.
          const start = op.length;
          if (node.min === 1) {
            build(node.node);
            if (node.many) emit(SPLIT, start, op.length + 1);
            return;
          }
          const split = emit(SPLIT, start + 1, 0);
          build(node.node);
          if (node.many) emit(JUMP, split);
          b[split] = op.length;
          return;
        }
      }
    };
    build(root);
    emit(MATCH);
    this.op = Uint8Array.from(op);
    this.a = Int32Array.from(a);
    this.b = Int32Array.from(b);
    this.size = op.length;
    this.marks = new Uint32Array(this.size);
    this.stack = new Int32Array(this.size * 2 + 2);
    this.current = new Int32Array(this.size);
    this.next = new Int32Array(this.size);
  }

  /** Number of instructions: the per-character cost bound of {@link test}. */
  get length(): number {
    return this.size;
  }

  /** Adds `pc` and everything reachable from it without reading a character to `list`; returns the new list length. */
  private close(list: Int32Array, length: number, pc: number, at: number): number {
    const { op, a, b, marks, stack, text } = this;
    const gen = this.generation;
    let top = 0;
    stack[top++] = pc;
    while (top > 0) {
      const p = stack[--top]!;
      if (marks[p] === gen) continue;
      marks[p] = gen;
      switch (op[p]) {
        case JUMP:
          stack[top++] = a[p]!;
          break;
        case SPLIT:
          stack[top++] = b[p]!;
          stack[top++] = a[p]!;
          break;
        case ASSERT:
          if (this.asserts[a[p]!]!(text, at)) stack[top++] = p + 1;
          break;
        case FAIL:
          break;
        default:
          list[length++] = p;
      }
    }
    return length;
  }

  /** How many distinct assertions the program has (each is one bit of {@link contextAt}). */
  get assertions(): number {
    return this.asserts.length;
  }

  /** The assertions' answers at `at`, as a bit mask: the only thing a closure at `at` depends on besides the state. */
  contextAt(text: string, at: number): number {
    let mask = 0;
    for (let j = 0; j < this.asserts.length; j++) if (this.asserts[j]!(text, at)) mask |= 1 << j;
    return mask;
  }

  /** The live instructions before the first character (sorted). */
  initial(text: string): Int32Array {
    this.text = text;
    this.generation = (this.generation + 1) >>> 0 || 1;
    const n = this.close(this.current, 0, 0, 0);
    vmStats.steps += n;
    this.text = '';
    return this.current.slice(0, n).sort();
  }

  /** The live instructions after reading `code` from the state `live`, with assertions evaluated at `at` (sorted). */
  advance(live: Int32Array, code: number, text: string, at: number): Int32Array {
    const { op, a, sets } = this;
    this.text = text;
    this.generation = (this.generation + 1) >>> 0 || 1;
    let n = 0;
    for (let t = 0; t < live.length; t++) {
      const p = live[t]!;
      const kind = op[p];
      if ((kind === CHAR && a[p] === code) || (kind === SET && sets[a[p]!]!(code))) n = this.close(this.next, n, p + 1, at);
    }
    vmStats.steps += n;
    this.text = '';
    return this.next.slice(0, n).sort();
  }

  /** Whether a state accepts (the text may end here). */
  accepts(live: Int32Array): boolean {
    for (let t = 0; t < live.length; t++) if (this.op[live[t]!] === MATCH) return true;
    return false;
  }

  /** Whether the whole of `text` matches (anchored at both ends), by NFA simulation alone (no cache). */
  test(text: string): boolean {
    const { unicode } = this;
    let live = this.initial(text);
    for (let i = 0; i < text.length && live.length > 0; ) {
      const code = unicode ? text.codePointAt(i)! : text.charCodeAt(i);
      i += unicode && code > 0xffff ? 2 : 1;
      live = this.advance(live, code, text, i);
    }
    return this.accepts(live);
  }
}
