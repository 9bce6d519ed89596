import { anyGlobMatcher, compileLogic, compileRegex, globMatcher, PatternError } from '@verdict/core';
import { describe, expect, it } from 'vitest';
import { PROGRAMS } from '../src/patterns/glob.js';
import { vmStats } from '../src/patterns/nfa.js';
import { loadProblems } from './helpers.js';

/** [pattern, value, expected]: minimatch 10's makeRe semantics with {dot: true}. */
type Case = readonly [string, string, boolean];

function expectCases(cases: readonly Case[]) {
  for (const [pattern, value, expected] of cases) {
    expect({ pattern, value, matches: globMatcher(pattern)(value) }).toEqual({ pattern, value, matches: expected });
  }
}

/** VM steps taken by `fn` (the string fast paths take none). */
function stepsOf(fn: () => void): number {
  const before = vmStats.steps;
  fn();
  return vmStats.steps - before;
}

describe('glob semantics (minimatch with dot: true)', () => {
  it('keeps * and ? inside one path segment and lets ** cross segments', () => {
    expectCases([
      ['kube-*', 'kube-system', true], ['kube-*', 'kube/system', false], ['*-system', 'gatekeeper-system', true],
      ['team-?', 'team-a', true], ['team-?', 'team-ab', false], ['a?b', 'a/b', false],
      ['registry.io/*', 'registry.io/app', true], ['registry.io/*', 'registry.io/team/app', false], ['registry.io/*', 'registry.io/', false],
      ['registry.io/**', 'registry.io/team/app', true], ['registry.io/**', 'registry.io', true], ['**/app', 'a/b/app', true], ['**/app', 'app', true],
      ['a/**/b', 'a/b', true], ['a/**/b', 'a/x/y/b', true], ['a/**/b', 'ab', false], ['**', 'a\nb', false], ['*', 'a\nb', true],
    ]);
  });

  it('matches dot files with * but never a . or .. segment at the start', () => {
    expectCases([
      ['*', '.hidden', true], ['*', '.', false], ['*', '..', false], ['.*', '.', false], ['.*', '.x', true],
      ['**', '../a', false], ['**', 'a/../b', false], ['a/*', 'a/.', true],
    ]);
  });

  it('expands braces and reads classes, POSIX classes, escapes and extglobs', () => {
    expectCases([
      ['{a,b}-*', 'b-1', true], ['{a,b}-*', 'c-1', false], ['v{1..3}', 'v2', true], ['v{1..3}', 'v4', false],
      ['[abc]x', 'bx', true], ['[!abc]x', 'dx', true], ['[!abc]x', 'ax', false], ['[a-c]', 'd', false], ['[[:digit:]]*', '7up', true],
      ['[[:alpha:]]', 'é', true], ['[z-a]', 'z', false], ['a\\*b', 'a*b', true], ['a\\*b', 'axb', false],
      ['+(ab|cd)', 'abcdab', true], ['+(ab|cd)', '', false], ['*(ab|cd)x', 'x', true], ['?(ab)x', 'abx', true], ['?(ab)x', 'ababx', false],
      ['@(dev|prod)-*', 'prod-eu', true], ['@(dev|prod)-*', 'qa-eu', false], ['@()', '@()', true], ['*(a', 'x(a', true],
    ]);
  });

  it('compares strings without glob characters exactly', () => {
    expectCases([['a//b', 'a//b', true], ['a//b', 'a/b', false], ['default', 'default2', false]]);
  });

  it('refuses negated extglobs, oversized patterns and brace explosions with a PatternError', () => {
    expect(() => globMatcher('!(kube-system)')).toThrow(PatternError);
    expect(() => globMatcher('x-!(a|b)')).toThrow(/negated extglob "!\(a\|b\)" is not supported/);
    expect(() => globMatcher(`*${'a'.repeat(1024)}`)).toThrow(/limit is 1024/);
    expect(() => globMatcher('{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}')).toThrow(/more than 256 patterns/);
  });

  it('reports a refused glob in a rule as a load problem at its JSON pointer', () => {
    const [problem] = loadProblems(JSON.stringify({
      apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'p' },
      spec: { validate: [{ name: 'r', rule: { glob: [['ok-*', '!(x)'], { var: 'name' }] }, message: 'm' }] },
    }));
    expect(problem).toMatchObject({ code: 'INVALID_RULE', path: '/spec/validate/0/rule/glob' });
    expect(problem!.message).toMatch(/negated extglob/);
  });

  it('accepts any of a list, with exact names and globs mixed; an empty list matches nothing', () => {
    const m = anyGlobMatcher(['default', 'kube-*', '*-system']);
    expect(['default', 'kube-public', 'x-system', 'other'].map(m)).toEqual([true, true, true, false]);
    expect(anyGlobMatcher([])('x')).toBe(false);
  });
});

describe('glob matching runs in linear time', () => {
  it('answers the issue\'s hostile inputs on the string fast path without any NFA step', () => {
    const steps = stepsOf(() => {
      expect(globMatcher('*-*-*-*-*.internal')('-'.repeat(50_000))).toBe(false);
      expect(globMatcher('*a*a*a*a*a*a*a*b')('a'.repeat(50_000))).toBe(false);
    });
    expect(steps).toBe(0);
  });

  it('takes NFA steps in proportion to the input on patterns the fast path cannot take', () => {
    for (const [pattern, unit] of [['**/*a*a*a*b', 'a/'], ['+(a|aa)*b', 'a'], ['*([a-z])*([a-z])!', 'a'], ['a/**/b/**/c/**/d', 'a/']] as const) {
      const nfa = PROGRAMS.get(globMatcher(pattern))!;
      const short = stepsOf(() => nfa.test(unit.repeat(1000)));
      const long = stepsOf(() => nfa.test(unit.repeat(10_000)));
      expect({ pattern, ratio: Math.round(long / short) }).toEqual({ pattern, ratio: 10 });
    }
  });

  it('caches NFA states as a lazy DFA: a second input of the same shape takes no NFA step, and answers stay the same', () => {
    const matcher = globMatcher('**/*-*-*-*-*.internal');
    const nfa = PROGRAMS.get(matcher)!;
    for (const v of ['-'.repeat(5000), `${'dir/'.repeat(500)}a-b-c-d-e.internal`, './a-b-c-d-e.internal', 'x/../a-b-c-d-e.internal']) expect(matcher(v)).toBe(nfa.test(v));
    expect(stepsOf(() => matcher('-'.repeat(20_000)))).toBe(0);
  });
});

describe('regular expressions (RE2 syntax, linear time)', () => {
  it('refuses what RE2 cannot run, with a hint for each JavaScript-only form', () => {
    expect(() => compileRegex('(a)\\1')).toThrow(/backreferences cannot run in linear time/);
    expect(() => compileRegex('(?<n>a)\\k<n>')).toThrow(/backreferences/);
    expect(() => compileRegex('(?<=a)b')).toThrow(/lookahead and lookbehind/);
    expect(() => compileRegex('a(?!b)')).toThrow(/lookahead and lookbehind/);
    expect(() => compileRegex('\\u00e9')).toThrow(/\\x\{00e9\}/);
    expect(() => compileRegex('a++')).toThrow(/possessive/);
    expect(() => compileRegex('x', 'g')).toThrow(/flags "g" are not supported/);
    expect(() => compileRegex('(')).toThrow(PatternError);
  });

  it('keeps its flags and matches case-insensitively with i', () => {
    const re = compileRegex('^team-[a-z]+$', 'i');
    expect(re.flags).toBe('i');
    expect(re.test('TEAM-Web')).toBe(true);
  });

  it('answers a catastrophic-backtracking pattern on a 50,000-character input', () => {
    expect(compileRegex('^([a-z0-9]+-?)+$').test(`${'a'.repeat(50_000)}!`)).toBe(false);
    expect(compileLogic({ regex: ['^(a|aa)+$', { var: 'v' }] }).apply({ v: `${'a'.repeat(50_000)}!` })).toBe(false);
  });
});
