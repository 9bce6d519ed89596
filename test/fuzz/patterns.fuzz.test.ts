/**
 * Random patterns × random strings: verdict's glob matcher agrees with
 * minimatch 10 (the reference of the semantics verdict always had), its
 * regular expressions agree with JavaScript's RegExp wherever both engines
 * define the same semantics, and both do work proportional to the input.
 */
import fc from 'fast-check';
import { makeRe } from 'minimatch';
import { compileRegex, compilePolicies, globMatcher, isGlob } from '@verdict/core';
import { describe, expect, it } from 'vitest';
import { PROGRAMS } from '../../packages/core/src/patterns/glob.js';
import { vmStats } from '../../packages/core/src/patterns/nfa.js';
import { check, TIMEOUT } from './settings.js';

const MINIMATCH = { dot: true, nocomment: true, nonegate: true } as const;
const GLOB_TOKENS = [
  'a', 'b', 'x', '.', '..', '-', '/', '//', '*', '**', '?', '[ab]', '[!a]', '[a-c]', '[[:alpha:]]', '[[:digit:]x]', '{a,b}', '{,x}', '{1..3}',
  '@(a|b)', '+(a|b*)', '*(ab)', '?(b)', '@(*)', '\\*', '\\.', '(', ')', '[', '|', 'é',
];
const VALUE_CHARS = ['a', 'b', 'x', '.', '/', '-', '1', 'é', '\n', '*', '(', ')', '😀'];

const glob = fc.array(fc.constantFrom(...GLOB_TOKENS), { minLength: 1, maxLength: 7 }).map((t) => t.join(''));
const value = fc.array(fc.constantFrom(...VALUE_CHARS, 'ab', '..', 'a/b'), { maxLength: 8 }).map((t) => t.join(''));

/**
 * What verdict always answered: exact comparison for a string without glob
 * characters, else minimatch's RegExp; undefined when minimatch cannot compile
 * the pattern (`\-` next to a POSIX class makes an invalid `u` RegExp).
 */
function reference(pattern: string): ((v: string) => boolean) | undefined {
  if (!isGlob(pattern)) return (v) => v === pattern;
  let re: RegExp | false;
  try {
    re = makeRe(pattern, MINIMATCH);
  } catch {
    return undefined;
  }
  return re === false ? (v) => v === pattern : (v) => re.test(v);
}

describe('fuzz: globs', () => {
  it('agree with minimatch on random patterns and strings (or are refused for a documented reason)', () => {
    check(fc.property(glob, fc.array(value, { minLength: 1, maxLength: 12 }), (pattern, values) => {
      let mine: (v: string) => boolean;
      try {
        mine = globMatcher(pattern);
      } catch (error) {
        expect((error as Error).message).toMatch(/negated extglob|empty extglob/);
        return;
      }
      // minimatch turns an escaped `|` into an alternation; verdict keeps it a literal.
      const ref = pattern.includes('\\|') ? undefined : reference(pattern);
      if (!ref) return;
      for (const v of values) expect({ pattern, value: v, matches: mine(v) }).toEqual({ pattern, value: v, matches: ref(v) });
    }), 400);
  }, TIMEOUT);

  it('take at most (length + 1) × program-length NFA steps, on any input', () => {
    check(fc.property(glob, value, fc.integer({ min: 50, max: 400 }), (pattern, unit, times) => {
      let matcher: (v: string) => boolean;
      try {
        matcher = globMatcher(pattern);
      } catch {
        return;
      }
      const input = (unit || 'a').repeat(times);
      const before = vmStats.steps;
      matcher(input);
      const program = PROGRAMS.get(matcher);
      expect(vmStats.steps - before).toBeLessThanOrEqual((input.length + 1) * (program?.length ?? 0));
    }), 200);
  }, TIMEOUT);
});

/**
 * Regular expressions in the subset where RE2 and JavaScript define the same
 * semantics: no backreferences or lookaround (RE2 refuses them), and no
 * quantifier on a group that can match the empty string (JavaScript rejects
 * an empty iteration and backtracks, RE2 does not: `(a??)?` finds "a" in
 * JavaScript and "" in RE2).
 */
interface Re {
  src: string;
  /** Whether it can match the empty string. */
  empty: boolean;
}
const QUANTIFIERS = ['', '', '*', '+', '?', '{1,2}', '{2}', '*?', '+?', '??'];
const regexTree: fc.Arbitrary<Re> = fc.letrec<{ alt: Re; seq: Re; atom: Re; piece: Re }>((tie) => ({
  atom: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('a', 'b', '1', '.', '[ab]', '[^a]', '\\d', '\\s', '\\w', ' ').map((src) => ({ src, empty: false })) },
    { weight: 1, arbitrary: tie('alt').map((a) => ({ src: `(?:${a.src})`, empty: a.empty })) },
    { weight: 1, arbitrary: tie('alt').map((a) => ({ src: `(${a.src})`, empty: a.empty })) },
  ),
  piece: fc.tuple(tie('atom'), fc.constantFrom(...QUANTIFIERS)).map(([a, q]) => {
    if (a.empty || q === '') return a;
    return { src: a.src + q, empty: q.startsWith('*') || q.startsWith('?') || a.empty };
  }),
  seq: fc.array(tie('piece'), { minLength: 1, maxLength: 3 }).map((p) => ({ src: p.map((x) => x.src).join(''), empty: p.every((x) => x.empty) })),
  alt: fc.array(tie('seq'), { minLength: 1, maxLength: 3 }).map((s) => ({ src: s.map((x) => x.src).join('|'), empty: s.some((x) => x.empty) })),
})).alt;
const regex = regexTree.chain((body) => fc.tuple(fc.constantFrom('', '^'), fc.constantFrom('', '$')).map(([start, end]) => `${start}${body.src}${end}`));
const text = fc.array(fc.constantFrom('a', 'b', '1', ' ', '\n', 'x'), { maxLength: 10 }).map((t) => t.join(''));

describe('fuzz: regular expressions', () => {
  it('agree with JavaScript RegExp (test and find) where both engines define the same semantics', () => {
    check(fc.property(regex, fc.constantFrom('', 'i'), fc.array(text, { minLength: 1, maxLength: 8 }), (pattern, flags, texts) => {
      const mine = compileRegex(pattern, flags);
      const js = new RegExp(pattern, flags);
      for (const t of texts) {
        const found = js.exec(t);
        expect({ pattern, text: t, test: mine.test(t), find: mine.find(t) }).toEqual({ pattern, text: t, test: found !== null, find: found ? found[0] : null });
      }
    }), 300);
  }, TIMEOUT);

  it('cost one budget unit per ten characters of input, whatever the pattern', () => {
    check(fc.property(regex, fc.integer({ min: 0, max: 20_000 }), (pattern, length) => {
      const rule = { or: [{ regex: [pattern, { var: 's' }] }, true] };
      const set = compilePolicies([{ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'r' }, spec: { validate: [{ name: 'r', rule, message: 'm' }] } }]);
      const cost = (s: string) => set.evaluate({ s }).cost!;
      expect(cost('a'.repeat(length)) - cost('')).toBe(Math.floor(length / 10));
    }), 50);
  }, TIMEOUT);
});
