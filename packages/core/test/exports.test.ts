import { describe, expect, it } from 'vitest';
import * as core from '@verdict/core';
import { anyGlobMatcher, closest, compileRegex, compileTemplate, didYouMean, globMatcher, isForbiddenKey, isGlob, PolicyLoadError, toVerdictError, VerdictError, type TextMeter } from '@verdict/core';
import { MISSING, renderValue } from '../src/template.js';
import { load } from './helpers.js';

describe('the public surface of @verdict/core', () => {
  it('exports exactly these runtime values (each is tested in this folder)', () => {
    expect(Object.keys(core).sort()).toEqual([
      'ComparisonError', 'ContainerImage', 'DEFAULT_COST_BUDGET', 'NEWEST_KUBERNETES_VERSION', 'PatchTestFailed', 'PatternError', 'PolicyLoadError', 'PolicySet', 'Quantity', 'SelectorError', 'VerdictError', 'adapterOfMatchKey', 'anyGlobMatcher',
      'checkInputReads', 'closest', 'compileCel', 'compileLabelSelector',
      'compileLogic', 'compilePolicies', 'compileRegex', 'compileTemplate', 'didYouMean', 'diffPatch', 'documentSchema', 'formatLabelSelector', 'formatProblem', 'formatQuantity', 'globMatcher', 'isForbiddenKey', 'isGlob',
      'labelKeyError', 'labelValueError', 'loadPolicySet', 'matchLabelSelector', 'mergeParameters', 'parseContainerImage', 'parseLabelSelector', 'parsePolicyDocuments', 'parseQuantity', 'parseResourceQuantity', 'scaledValue', 'sourceLocation',
      'toVerdictError', 'validateLabelSelector',
    ]);
  });
});

describe('quantities as the API server reads and writes them (from @verdict/cel)', () => {
  it('parse with their format, write the canonical form, round to a scale', () => {
    const q = core.parseResourceQuantity('1024Mi');
    expect([q.format, q.text, q.value.num]).toEqual(['BinarySI', '1Gi', 1073741824n]);
    expect(core.formatQuantity(new core.Quantity(1500n, 3), 'DecimalSI')).toBe('1500m');
    expect(core.scaledValue(core.parseResourceQuantity('0.1').value, -3)).toBe(100n);
  });

  it('say why a label value is invalid', () => {
    expect(core.labelValueError('v1.2-a_b')).toBeUndefined();
    expect(core.labelValueError('!@#')).toMatch(/must be empty or start and end with a letter or digit/);
  });
});

describe('globs', () => {
  it('compare plain names exactly and run prefix, suffix and full globs', () => {
    expect(globMatcher('default')('default')).toBe(true);
    expect(globMatcher('default')('default2')).toBe(false);
    expect(globMatcher('kube-*')('kube-system')).toBe(true);
    expect(globMatcher('*-system')('gatekeeper-system')).toBe(true);
    expect(globMatcher('team-?')('team-a')).toBe(true);
    expect(globMatcher('{a,b}-*')('b-1')).toBe(true);
    expect(globMatcher('*')('.hidden')).toBe(true);
    expect(anyGlobMatcher(['x', 'y*'])('yes')).toBe(true);
    expect(anyGlobMatcher([])('x')).toBe(false);
    expect(isGlob('kube-*')).toBe(true);
    expect(isGlob('kube-system')).toBe(false);
  });
});

describe('linear-time regular expressions', () => {
  it('test, find and findAll with RE2 semantics, and refuse backreferences and lookaround with a reason', () => {
    const re = compileRegex('[a-z]+[0-9]');
    expect(re.test('--ab1--')).toBe(true);
    expect(re.find('x ab1 cd2')).toBe('ab1');
    expect(re.findAll('x ab1 cd2 ef3')).toEqual(['ab1', 'cd2', 'ef3']);
    expect(re.findAll('x ab1 cd2 ef3', 2)).toEqual(['ab1', 'cd2']);
    expect(re.find('nothing')).toBeNull();
    expect(compileRegex('^V', 'i').test('v1')).toBe(true);
    expect(() => compileRegex('(a)\\1')).toThrow(/backreferences cannot run in linear time/);
    expect(() => compileRegex('a(?=b)')).toThrow(/lookahead and lookbehind/);
  });

  it('matches a hostile input for a pattern that backtracks in JavaScript', () => {
    expect(compileRegex('^([a-z0-9]+-?)+$').test(`${'a'.repeat(5000)}!`)).toBe(false);
  });
});

describe('did-you-mean hints', () => {
  it('suggest the closest candidate within a small edit distance, ignoring case', () => {
    expect(closest('operation', ['key', 'operator', 'values'])).toBe('operator');
    expect(closest('Deny', ['deny', 'warn'])).toBe('deny');
    expect(closest('zzz', ['deny', 'warn'])).toBeUndefined();
    expect(didYouMean('lables', ['labels', 'fields'])).toBe('; did you mean "labels"?');
    expect(didYouMean('zzz', ['labels'])).toBe('');
  });
});

describe('templates', () => {
  it('render values the way messages show them', () => {
    const t = compileTemplate('{{a}} / {{b}} / {{c}} / {{d}}');
    const data: Record<string, unknown> = { a: ['x', 'y'], b: null, d: { k: 1 } };
    expect(t.render((path) => data[path[0]!])).toBe(`x, y / null / ${MISSING} / {"k":1}`);
    expect(t.paths).toEqual([['a'], ['b'], ['c'], ['d']]);
    expect(renderValue(3)).toBe('3');
    expect(compileTemplate('plain').constant).toBe(true);
    expect(() => compileTemplate('{{ a | nope }}')).toThrow(/unknown filter "nope"/);
  });

  it('charge the objects and lists they render as text to a TextMeter', () => {
    const charged: number[] = [];
    const meter: TextMeter = { spendText: (length) => charged.push(length) };
    expect(compileTemplate('x {{a}}').render(() => ({ k: [1, 2] }), meter)).toBe('x {"k":[1,2]}');
    expect(charged).toEqual(['{"k":[1,2]}'.length]);
  });
});

describe('errors', () => {
  it('serialise to {code, message, path} and normalise unknown throwables', () => {
    const e = new VerdictError('INVALID_INPUT', 'bad', { path: '/x' });
    expect(e.toJSON()).toEqual({ code: 'INVALID_INPUT', message: 'bad', path: '/x' });
    expect(toVerdictError(new Error('x'))).toMatchObject({ code: 'INTERNAL', message: 'x' });
    expect(toVerdictError(e)).toBe(e);
    expect(VerdictError.forbiddenKey('__proto__', '/a').code).toBe('FORBIDDEN_KEY');
    expect(VerdictError.invalidInput('nope').code).toBe('INVALID_INPUT');
  });

  it('name the keys that could reach a prototype, one list for every package (isForbiddenKey)', () => {
    expect(['__proto__', 'constructor', 'prototype'].map(isForbiddenKey)).toEqual([true, true, true]);
    expect(['proto', '__proto', 'Constructor', 'toString', ''].map(isForbiddenKey)).toEqual([false, false, false, false, false]);
  });

  it('PolicyLoadError lists problems in its message and JSON', () => {
    try {
      load('kind: Policy\napiVersion: verdict.dev/v1\nmetadata: {name: x}\nspec: {bogus: 1}\n');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(PolicyLoadError);
      expect((error as PolicyLoadError).message).toMatch(/^1 problem in policy documents:\n {2}- test\.yaml:4:\d+ \(Policy\/x\) at \/spec\/bogus: unknown field "bogus"/);
      expect((error as PolicyLoadError).toJSON().problems).toHaveLength(1);
    }
  });
});

describe('PolicySet', () => {
  it('lints its policies (see lint.test.ts for the findings)', () => {
    expect(load('kind: Policy\napiVersion: verdict.dev/v1\nmetadata: {name: x}\nspec: {}\n').lint()).toEqual([]);
  });

  it('reports its mutation target and dialects', () => {
    const set = load('kind: Policy\napiVersion: verdict.dev/v1\nmetadata: {name: x}\nspec: {}\n', { mutationTarget: '/object' });
    expect(set.mutationTarget).toBe('/object');
    expect(set.dialects).toEqual([]);
  });
});
