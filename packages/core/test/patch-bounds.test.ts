/**
 * Patches and parameters at any depth and any size: a `copy` is charged to the budget (so repeated
 * self-copies, which double the object each time, stop with BUDGET_EXCEEDED), values nested far deeper
 * than the JavaScript stack allows are added, copied, moved and tested, and a forbidden key is found at
 * any depth.
 */
import { describe, expect, it } from 'vitest';
import { compilePolicies, diffPatch, mergeParameters, PolicyLoadError } from '@verdict/core';
import { load } from './helpers.js';

function computed(name: string, expression: string) {
  return JSON.stringify({ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name }, spec: { mutate: [{ name: 'r', expression }] } });
}

function nested(depth: number, leaf: unknown = 1): Record<string, unknown> {
  let o: Record<string, unknown> = { leaf };
  for (let i = 0; i < depth; i++) o = { x: o };
  return o;
}

/** The depth of a value, without recursion. */
function depthOf(value: unknown): number {
  let depth = 0;
  let at = value;
  while (at !== null && typeof at === 'object' && 'x' in at) {
    at = (at as { x: unknown }).x;
    depth++;
  }
  return depth;
}

describe('a computed patch that copies', () => {
  const selfCopies = (n: number) => `[${Array.from({ length: n }, (_, i) => `{"op": "copy", "from": "/spec", "path": "/spec/c${i}"}`).join(', ')}]`;

  it('pays one unit per container and two per element or entry copied', () => {
    const set = load(computed('copy', selfCopies(1)));
    const small = set.evaluate({ spec: { a: [1, 2, 3] } });
    expect(small.mutated).toEqual({ spec: { a: [1, 2, 3], c0: { a: [1, 2, 3] } } });
    const large = set.evaluate({ spec: { a: Array.from({ length: 10_000 }, (_, i) => i) } });
    expect((large.cost ?? 0) - (small.cost ?? 0)).toBe(2 * (10_000 - 3));
  });

  it('stops repeated self-copies (each doubles the object) at the budget with BUDGET_EXCEEDED, not after 2^40 copies', () => {
    const set = load(computed('doubling', selfCopies(40)), { costBudget: 1_000_000 });
    const started = performance.now();
    const decision = set.evaluate({ spec: { a: 'x' } });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(decision.allowed).toBe(false);
    expect(decision.patch).toEqual([]);
    expect(decision.errors.map((e) => e.code)).toEqual(['BUDGET_EXCEEDED']);
  });
});

/** Deeper than any recursion over values survives (V8's default stack holds about 10,000 such frames). */
const DEPTH = 30_000;

describe('patch values nested deeper than the JavaScript stack', () => {
  const input = () => ({ spec: { deep: nested(DEPTH) } });

  it('are copied, moved and tested, with the true result', () => {
    const copied = load(computed('copy', '[{"op": "copy", "from": "/spec/deep", "path": "/spec/copy"}]')).evaluate(input());
    expect(copied.errors).toEqual([]);
    expect(depthOf((copied.mutated as { spec: { copy: unknown } }).spec.copy)).toBe(DEPTH);

    const moved = load(computed('move', '[{"op": "move", "from": "/spec/deep", "path": "/moved"}]')).evaluate(input());
    expect(moved.errors).toEqual([]);
    expect(depthOf((moved.mutated as { moved: unknown }).moved)).toBe(DEPTH);
  });

  it('are added from the input by a CEL expression', () => {
    const decision = load(computed('add', '[{"op": "add", "path": "/spec/copy", "value": spec.deep}]')).evaluate(input());
    expect(decision.errors).toEqual([]);
    expect(depthOf((decision.mutated as { spec: { copy: unknown } }).spec.copy)).toBe(DEPTH);
  });

  it('are compared by test: equal passes, a different leaf skips the rule', () => {
    const test = (leaf: number) => load(computed('test', '[{"op": "test", "path": "/spec/deep", "value": other}, {"op": "add", "path": "/ok", "value": true}]')).evaluate({ ...input(), other: nested(DEPTH, leaf) });
    expect(test(1).mutated).toMatchObject({ ok: true });
    const skipped = test(2);
    expect(skipped.errors).toEqual([]);
    expect(skipped.patch).toEqual([]);
  });
});

describe('diffPatch', () => {
  it('compares and copies values nested deeper than the JavaScript stack', () => {
    const ops = diffPatch({ spec: { deep: nested(DEPTH, 1) } }, { spec: { deep: nested(DEPTH, 2), copy: nested(DEPTH) } });
    expect(ops.map((o) => [o.op, o.path.length])).toEqual([['replace', `/spec/deep${'/x'.repeat(DEPTH)}/leaf`.length], ['add', '/spec/copy'.length]]);
    expect(depthOf(ops[1]!.value)).toBe(DEPTH);
  });
});

describe('forbidden keys at any depth', () => {
  it('are refused in a document nested 100,000 deep (the check stopped at depth 256)', () => {
    const deep = nested(100_000);
    let at = deep;
    for (let i = 0; i < 100_000; i++) at = at['x'] as Record<string, unknown>;
    Object.defineProperty(at, '__proto__', { value: { polluted: true }, enumerable: true });
    const doc = { apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'p' }, spec: { parameters: { deep }, validate: [{ name: 'r', rule: true }] } };
    let problems: readonly { code: string; path: string }[] = [];
    try {
      compilePolicies([doc]);
    } catch (error) {
      if (!(error instanceof PolicyLoadError)) throw error;
      problems = error.problems;
    }
    expect(problems.map((p) => p.code)).toEqual(['FORBIDDEN_KEY']);
    expect(problems[0]!.path).toBe(`/spec/parameters/deep${'/x'.repeat(100_000)}/__proto__`);
  });

  it('are reported in document order: under an earlier key before a later forbidden key of the same object', () => {
    const base = JSON.parse('{"a": {"b": {"constructor": 1}}, "prototype": 2}') as Record<string, unknown>;
    expect(() => mergeParameters(base, {})).toThrow(expect.objectContaining({ code: 'FORBIDDEN_KEY', path: '/a/b/constructor' }));
  });
});
