import { describe, expect, it } from 'vitest';
import { load, loadProblems } from './helpers.js';

function mutator(name: string, patch: unknown[], extra: Record<string, unknown> = {}) {
  return JSON.stringify({ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name }, spec: { mutate: [{ name: 'm', patch }], ...extra } });
}

describe('mutate rules', () => {
  it('add an annotation on the object and emit a patch relative to the mutation target (kinitiras addanno)', () => {
    const set = load(mutator('add-annotation', [{ op: 'add', path: '/metadata/annotations/added-by', value: 'verdict' }]), { mutationTarget: '/object' });
    const input = { operation: 'CREATE', object: { metadata: { name: 'x', annotations: { a: '1' } } } };
    const d = set.evaluate(input);
    expect(d.patch).toEqual([{ op: 'add', path: '/metadata/annotations/added-by', value: 'verdict' }]);
    expect(d.mutated).toEqual({ metadata: { name: 'x', annotations: { a: '1', 'added-by': 'verdict' } } });
    expect(input.object.metadata.annotations).toEqual({ a: '1' });
  });

  it('creates missing parents and emits them as their own operations', () => {
    const set = load(mutator('p', [{ op: 'add', path: '/metadata/labels/team', value: 'a' }]), { mutationTarget: '/object' });
    const d = set.evaluate({ object: { metadata: { name: 'x' } } });
    expect(d.patch).toEqual([{ op: 'add', path: '/metadata/labels', value: {} }, { op: 'add', path: '/metadata/labels/team', value: 'a' }]);
    expect(d.mutated).toEqual({ metadata: { name: 'x', labels: { team: 'a' } } });
  });

  it('appends to a list with "-" and creates the list when it is missing', () => {
    const set = load(mutator('p', [{ op: 'add', path: '/tags/-', value: 'zone_a' }]));
    expect(set.evaluate({ tags: ['docker'] }).mutated).toEqual({ tags: ['docker', 'zone_a'] });
    expect(set.evaluate({}).patch).toEqual([{ op: 'add', path: '/tags', value: [] }, { op: 'add', path: '/tags/-', value: 'zone_a' }]);
  });

  it('applies policies in spec.order, then name, each seeing what the previous one left', () => {
    const docs = [
      mutator('b-second', [{ op: 'add', path: '/trail/-', value: '{{parameters.me}} saw {{trail | join "+"}}' }], { order: 1, parameters: { me: 'b' } }),
      mutator('a-first', [{ op: 'add', path: '/trail/-', value: '{{parameters.me}} saw {{trail | join "+"}}' }], { order: 1, parameters: { me: 'a' } }),
      mutator('z-zeroth', [{ op: 'add', path: '/trail', value: ['start'] }], { order: 0 }),
    ].join('\n---\n');
    const d = load(docs).evaluate({});
    expect(d.mutated).toEqual({ trail: ['start', 'a saw start', 'b saw start+a saw start'] });
    expect(d.trace.map((t) => t.policy)).toEqual(['z-zeroth', 'a-first', 'b-second']);
  });

  it('keeps the type of a value that is a single template', () => {
    const set = load(mutator('p', [{ op: 'add', path: '/spec/replicas', value: '{{parameters.n}}' }, { op: 'add', path: '/spec/ports', value: ['{{parameters.n}}', 'p-{{parameters.n}}'] }], { parameters: { n: 3 } }));
    expect(set.evaluate({ spec: {} }).mutated).toEqual({ spec: { replicas: 3, ports: [3, 'p-3'] } });
  });

  it('templates paths, escaping nothing but checking the result', () => {
    const set = load(mutator('p', [{ op: 'add', path: '/labels/{{parameters.key}}', value: 'yes' }], { parameters: { key: 'reviewed' } }));
    expect(set.evaluate({ labels: {} }).mutated).toEqual({ labels: { reviewed: 'yes' } });
    const hostile = load(mutator('p', [{ op: 'add', path: '/{{parameters.key}}/x', value: 1 }], { parameters: { key: '__proto__' } }));
    const d = hostile.evaluate({});
    expect(d.errors[0]).toMatchObject({ code: 'RULE_ERROR' });
    expect(({} as Record<string, unknown>)['x']).toBeUndefined();
  });

  it('skips a rule whose when condition is false', () => {
    const set = load(JSON.stringify({ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'p' }, spec: { mutate: [{ name: 'm', when: { '==': [{ var: 'operation' }, 'CREATE'] }, patch: [{ op: 'add', path: '/x', value: 1 }] }] } }));
    const d = set.evaluate({ operation: 'UPDATE' });
    expect(d.patch).toEqual([]);
    expect(d.mutated).toBeUndefined();
    expect(d.trace[0]!.rules[0]).toEqual({ rule: 'm', type: 'mutate', result: 'skipped', message: 'when condition is false' });
  });

  it('applies a rule atomically: a failing operation undoes the rule and reports an error', () => {
    const set = load(mutator('p', [{ op: 'add', path: '/a', value: 1 }, { op: 'remove', path: '/missing' }]));
    const input = { keep: true };
    const d = set.evaluate(input);
    expect(d.patch).toEqual([]);
    expect(d.mutated).toBeUndefined();
    expect(d.errors).toEqual([expect.objectContaining({ code: 'RULE_ERROR', policy: 'p', rule: 'm' })]);
    expect(d.allowed).toBe(false);
    expect(input).toEqual({ keep: true });
  });

  it('lets validation see the mutated object', () => {
    const set = load([
      mutator('default-limit', [{ op: 'add', path: '/limit', value: 5 }], { order: 0 }),
      JSON.stringify({ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'check' }, spec: { order: 1, validate: [{ name: 'has-limit', rule: { '!!': { var: 'limit' } }, message: 'no limit' }] } }),
    ].join('\n---\n'));
    expect(set.evaluate({}).allowed).toBe(true);
    expect(set.evaluate({}, { mutate: false })).toMatchObject({ allowed: false, patch: [] });
  });

  it('copies only the containers on a patched path', () => {
    const set = load(mutator('p', [{ op: 'replace', path: '/a/b', value: 2 }]));
    const input = { a: { b: 1 }, big: { untouched: [1, 2, 3] } };
    const d = set.evaluate(input);
    const mutated = d.mutated as typeof input;
    expect(mutated.a).not.toBe(input.a);
    expect(mutated.big).toBe(input.big);
  });

  it('move, copy, test and remove follow RFC 6902', () => {
    const set = load(mutator('p', [
      { op: 'test', path: '/a', value: 1 },
      { op: 'copy', from: '/a', path: '/b' },
      { op: 'move', from: '/b', path: '/c' },
      { op: 'remove', path: '/a' },
    ]));
    expect(set.evaluate({ a: 1 }).mutated).toEqual({ c: 1 });
    expect(set.evaluate({ a: 2 }).errors).toHaveLength(1);
  });

  it('skips mutations when the mutation target is null or missing (e.g. a DELETE has no object)', () => {
    const set = load(mutator('p', [{ op: 'add', path: '/metadata/labels/x', value: 'y' }]), { mutationTarget: '/object' });
    for (const input of [{ object: null }, {}]) {
      const d = set.evaluate(input);
      expect(d).toMatchObject({ allowed: true, patch: [], errors: [] });
      expect(d.trace[0]!.rules[0]).toMatchObject({ result: 'skipped', message: expect.stringMatching(/^nothing to mutate: \/object is (null|missing)$/) });
    }
  });

  it('describes a failed operation in one line, without the document', () => {
    const d = load(mutator('p', [{ op: 'replace', path: '/spec/missing', value: 1 }])).evaluate({ spec: { secret: 'do-not-leak' } });
    expect(d.errors[0]!.message).toBe('mutate rule "m" was not applied: cannot replace at /spec/missing: the path does not exist');
    expect(JSON.stringify(d)).not.toContain('do-not-leak');
  });

  it('lets a refresh hook rebuild derived fields before validation', () => {
    const set = load([
      mutator('label', [{ op: 'add', path: '/metadata/labels/team', value: 'a' }], { order: 0 }),
      JSON.stringify({ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'needs-team' }, spec: { order: 1, validate: [{ name: 't', rule: { '!!': { var: 'labels.team' } }, message: 'no team' }] } }),
    ].join('\n---\n'), { mutationTarget: '/object' });
    const input = { object: { metadata: { labels: {} } }, labels: {} };
    expect(set.evaluate(input).allowed).toBe(false);
    const refreshed = set.evaluate(input, { refresh: (patched, object) => ({ ...patched, labels: (object as { metadata: { labels: object } }).metadata.labels }) });
    expect(refreshed.allowed).toBe(true);
  });

  it('rejects malformed patches at load time with the path of the problem', () => {
    const problems = loadProblems([
      mutator('a', [{ op: 'add', path: 'no-slash', value: 1 }]),
      mutator('b', [{ op: 'add', path: '/x' }]),
      mutator('c', [{ op: 'move', path: '/x' }]),
      mutator('d', [{ op: 'add', path: '/__proto__/x', value: 1 }]),
      mutator('e', [{ op: 'add', path: '/x', value: '{{ unclosed' }]),
    ].join('\n---\n'));
    expect(problems.map((p) => [p.document, p.code, p.path])).toEqual([
      [0, 'INVALID_PATCH', '/spec/mutate/0/patch/0/path'],
      [1, 'INVALID_PATCH', '/spec/mutate/0/patch/0'],
      [2, 'INVALID_PATCH', '/spec/mutate/0/patch/0'],
      [3, 'INVALID_PATCH', '/spec/mutate/0/patch/0/path'],
      [4, 'INVALID_PATCH', '/spec/mutate/0/patch/0/value'],
    ]);
  });
});
