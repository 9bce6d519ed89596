import { describe, expect, it } from 'vitest';
import { diffPatch, PatchTestFailed, type PatchType } from '@verdict/core';
import { load, loadProblems } from './helpers.js';

function computed(name: string, rules: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}) {
  return JSON.stringify({ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name }, spec: { mutate: rules, ...extra } });
}

describe('computed mutations (a mutate rule with a CEL expression)', () => {
  it('applies the list of RFC 6902 operations the expression gives (patchType JSONPatch, the default)', () => {
    const set = load(computed('tags', [{ name: 'tag', expression: '[{"op": "add", "path": "/tags/-", "value": "zone-" + zone}]' }]));
    expect(set.evaluate({ zone: 'a', tags: ['x'] })).toMatchObject({ patch: [{ op: 'add', path: '/tags/-', value: 'zone-a' }], mutated: { zone: 'a', tags: ['x', 'zone-a'] } });
  });

  it('follows RFC 6902 strictly: a missing parent is an error and nothing of the rule is applied', () => {
    const set = load(computed('strict', [{ name: 'r', expression: '[{"op": "add", "path": "/a", "value": 1}, {"op": "add", "path": "/b/c", "value": 2}]' }]));
    const d = set.evaluate({});
    expect(d).toMatchObject({ allowed: false, patch: [] });
    expect(d.errors[0]!.message).toBe('mutate rule "r" was not applied: cannot add at /b/c: the path cannot be added to');
  });

  it('turns the value into operations with a patch type given at compile time', () => {
    const merge: PatchType = (value, target) => Object.entries(value as Record<string, unknown>).map(([k, v]) => ({ op: k in (target as object) ? 'replace' as const : 'add' as const, path: `/${k}`, value: v }));
    const set = load(computed('merge', [{ name: 'r', expression: '{"a": 2, "b": 3}', patchType: 'Merge' }]), { patchTypes: { Merge: merge } });
    expect(set.evaluate({ a: 1 }).mutated).toEqual({ a: 2, b: 3 });
    expect(loadProblems(computed('merge', [{ name: 'r', expression: '{}', patchType: 'Merj' }]), { patchTypes: { Merge: merge } })[0]).toMatchObject({
      code: 'INVALID_PATCH', path: '/spec/mutate/0/patchType', message: 'unknown patchType "Merj"; did you mean "Merge"? (known: JSONPatch, Merge)',
    });
  });

  it('runs a policy with reinvocationPolicy IfNeeded once more when a later policy changed the input', () => {
    const docs = (policy: string) => [
      computed('a-copy', [{ name: 'copy', expression: 'has(input.b) ? [{"op": "add", "path": "/copied", "value": input.b}] : []' }], { reinvocationPolicy: policy }),
      computed('b-set', [{ name: 'set', expression: '[{"op": "add", "path": "/b", "value": "x"}]' }]),
    ].join('\n---\n');
    expect(load(docs('IfNeeded')).evaluate({})).toMatchObject({ mutated: { b: 'x', copied: 'x' } });
    const never = load(docs('Never')).evaluate({});
    expect(never.mutated).toEqual({ b: 'x' });
    expect(load(docs('IfNeeded')).evaluate({}).trace[0]!.rules.map((r) => r.message)).toEqual([undefined, 'reinvoked: a mutation was applied after it ran']);
  });

  it('reinvokes IfNeeded policies that ran when any mutation was applied, as the API server dispatcher does, and only once', () => {
    const count = computed('count', [{ name: 'inc', expression: '[{"op": "add", "path": "/n", "value": has(input.n) ? input.n + 1 : 1}]' }], { reinvocationPolicy: 'IfNeeded' });
    // Its own applied mutation is enough: the API server marks the object dirty and reinvokes every reinvocable policy invoked.
    expect(load(count).evaluate({}).mutated).toEqual({ n: 2 });
    // A rule that fails applies nothing: no reinvocation.
    const failing = computed('count', [{ name: 'inc', expression: '[{"op": "remove", "path": "/missing"}]' }], { reinvocationPolicy: 'IfNeeded' });
    expect(load(failing).evaluate({}).trace[0]!.rules).toHaveLength(1);
    // A mutation that fails the request stops the chain there: no reinvocation, even after an applied one.
    const failsAfter = [count, computed('z-broken', [{ name: 'r', expression: '[{"op": "remove", "path": "/missing"}]' }])].join('\n---\n');
    const d = load(failsAfter).evaluate({});
    expect(d.allowed).toBe(false);
    expect(d.trace[0]!.rules).toHaveLength(1);
  });

  it('evaluates the matchConditions of a policy that mutates at its turn, on the input as earlier policies left it', () => {
    const docs = [
      computed('a-label', [{ name: 'set', expression: '[{"op": "add", "path": "/env", "value": "prod"}]' }]),
      computed('b-prod-only', [{ name: 'mark', expression: '[{"op": "add", "path": "/marked", "value": true}]' }], { matchConditions: [{ name: 'prod', expression: 'has(input.env) && input.env == "prod"' }] }),
    ].join('\n---\n');
    expect(load(docs).evaluate({}).mutated).toEqual({ env: 'prod', marked: true });
    // The other order: b runs first, on the input as received, and does not match.
    const reversed = [
      computed('a-prod-only', [{ name: 'mark', expression: '[{"op": "add", "path": "/marked", "value": true}]' }], { matchConditions: [{ name: 'prod', expression: 'has(input.env) && input.env == "prod"' }] }),
      computed('b-label', [{ name: 'set', expression: '[{"op": "add", "path": "/env", "value": "prod"}]' }]),
    ].join('\n---\n');
    const d = load(reversed).evaluate({});
    expect(d.mutated).toEqual({ env: 'prod' });
    expect(d.trace[0]).toMatchObject({ matched: false, mismatch: { at: '/spec/matchConditions/0' }, rules: [] });
  });

  it('lets a patch type leave the input unchanged by throwing PatchTestFailed', () => {
    const guarded: PatchType = () => {
      throw new PatchTestFailed('the guard does not hold');
    };
    const d = load(computed('g', [{ name: 'r', expression: '{}', patchType: 'Guarded' }]), { patchTypes: { Guarded: guarded } }).evaluate({ a: 1 });
    expect(d).toMatchObject({ allowed: true, errors: [], patch: [] });
    expect(d.trace[0]!.rules[0]).toMatchObject({ result: 'skipped', message: 'not applied: the guard does not hold' });
  });
});

describe('mutationUnit', () => {
  const rules = [
    { name: 'first', expression: '[{"op": "add", "path": "/a", "value": 1}]' },
    { name: 'second', expression: '[{"op": "add", "path": "/missing/below", "value": 2}]' },
    { name: 'third', expression: '[{"op": "add", "path": "/c", "value": 3}]' },
  ];

  it('policy: the first rule that fails undoes the earlier ones and stops the rest, leaving the input as it was', () => {
    const d = load(computed('together', rules, { mutationUnit: 'policy', failurePolicy: 'Ignore' })).evaluate({ keep: true });
    expect(d).toMatchObject({ allowed: true, patch: [] });
    expect(d.mutated).toBeUndefined();
    expect(d.trace[0]!.rules.map((r) => [r.rule, r.result])).toEqual([['first', 'skipped'], ['second', 'error'], ['third', 'skipped']]);
  });

  it('rule (the default): each rule applies alone, the others keep their operations', () => {
    const d = load(computed('alone', rules, { failurePolicy: 'Ignore' })).evaluate({ keep: true });
    expect(d.mutated).toEqual({ keep: true, a: 1, c: 3 });
    expect(loadProblems(computed('bad', rules, { mutationUnit: 'all' }))[0]).toMatchObject({ path: '/spec/mutationUnit' });
  });
});

describe('diffPatch', () => {
  it('gives the operations that turn one value into the other, leaving both unchanged', () => {
    const before = { a: 1, b: { c: [1, 2] }, gone: true };
    const after = { a: 2, b: { c: [1, 2, 3] }, added: 'x' };
    const ops = diffPatch(before, after);
    expect(ops).toEqual(expect.arrayContaining([{ op: 'replace', path: '/a', value: 2 }, { op: 'remove', path: '/gone' }, { op: 'add', path: '/added', value: 'x' }, { op: 'add', path: '/b/c/2', value: 3 }]));
    expect(before).toEqual({ a: 1, b: { c: [1, 2] }, gone: true });
  });
});
