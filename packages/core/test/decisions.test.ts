import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { compilePolicies, loadPolicySet, type Decision, type MatchDialect } from '@verdict/core';
import { load, MEMORY_CONSTRAINT, MEMORY_TEMPLATE, pod } from './helpers.js';

describe('decisions never throw', () => {
  function setup() {
    return load(`${MEMORY_TEMPLATE}---${MEMORY_CONSTRAINT}`);
  }

  it.each([null, undefined, 'pod', 42, [1, 2], true])('answers %j with an INVALID_INPUT decision that denies', (input) => {
    const d = setup().evaluate(input);
    expect(d).toEqual({ allowed: false, violations: [], warnings: [], errors: [{ code: 'INVALID_INPUT', message: expect.stringMatching(/^the input must be an object/) }], patch: [], trace: [], skipped: 0 });
  });

  it('survives an input whose properties throw when read', () => {
    const hostile = { get namespaceLabels(): never { throw new Error('boom'); }, object: pod([{ name: 'a', memory: '1Gi' }]) };
    const d = setup().evaluate(hostile);
    expect(d.allowed).toBe(false);
    expect(d.errors.length).toBeGreaterThan(0);
  });

  it('treats __proto__ keys in the input as plain data', () => {
    const input = JSON.parse('{"object": {"spec": {"containers": [{"name": "a", "resources": {"limits": {"memory": "1Gi"}}}]}}, "namespaceLabels": {"__proto__": {"x": 1}}}');
    expect(setup().evaluate(input).allowed).toBe(true);
    expect(({} as Record<string, unknown>)['x']).toBeUndefined();
  });

  it('handles a cyclic input', () => {
    const object: Record<string, unknown> = { spec: { containers: [] } };
    object['self'] = object;
    expect(setup().evaluate({ object }).allowed).toBe(true);
  });

  it('is JSON-serialisable and deterministic', () => {
    const input = { object: pod([{ name: 'a', memory: '20Gi' }]), namespaceLabels: {} };
    const a = JSON.stringify(setup().evaluate(input));
    const b = JSON.stringify(setup().evaluate(input));
    expect(a).toBe(b);
    expect(JSON.parse(a)).toMatchObject({ allowed: false });
  });
});

describe('the trace answers "why"', () => {
  it('explain mode records why each earlier parameterSelection entry did not match', () => {
    const set = load(`${MEMORY_TEMPLATE}---${MEMORY_CONSTRAINT}`);
    const d = set.evaluate({ object: pod([{ name: 'a', memory: '1Gi' }]), namespaceLabels: { 'field.cattle.io/projectId': 'web' } }, { explain: true });
    expect(d.trace[0]!.selection).toEqual({
      behavior: 'MatchFirst', matched: [{ index: 2 }], outcome: 'selected',
      mismatches: [
        { index: 0, at: '/spec/parameterSelection/0/match/labels', selector: 'namespaceLabels: field.cattle.io/projectId=32g-team' },
        { index: 1, at: '/spec/parameterSelection/1/match/labels', selector: 'namespaceLabels: field.cattle.io/projectId=64g-team' },
      ],
    });
  });

  it('reports the failing part of a composed selector', () => {
    const set = load(`${MEMORY_TEMPLATE}---
kind: K8sMemoryLimits
metadata: {name: m}
spec:
  parameters: {limit: 1Gi}
  match:
    fields: [{path: namespace, values: ["team-*"], exclude: [team-legacy]}]
    not: {labels: "exempt=true"}
    when: {"==": [{var: operation}, CREATE]}
`);
    const why = (input: Record<string, unknown>) => set.evaluate({ object: pod([]), ...input }).trace[0]!.mismatch;
    expect(why({ namespace: 'other' })).toEqual({ at: '/spec/match/fields/0', selector: 'namespace in (team-*) and namespace not in (team-legacy)' });
    expect(why({ namespace: 'team-legacy' })).toEqual({ at: '/spec/match/fields/0', selector: 'namespace in (team-*) and namespace not in (team-legacy)' });
    expect(why({ namespace: 'team-a', labels: { exempt: 'true' } })).toEqual({ at: '/spec/match/not', selector: 'not (labels: exempt=true)' });
    expect(why({ namespace: 'team-a', operation: 'DELETE' })).toMatchObject({ at: '/spec/match/when' });
    expect(why({ namespace: 'team-a', operation: 'CREATE' })).toBeUndefined();
  });

  it('composes any, all and not', () => {
    const set = load(`${MEMORY_TEMPLATE}---
kind: K8sMemoryLimits
metadata: {name: m}
spec:
  parameters: {limit: 1Gi}
  match:
    any:
      - labels: "tier=gold"
      - all: [{labels: "team=a"}, {not: {labels: "env=dev"}}]
`);
    const matched = (labels: Record<string, string>) => set.evaluate({ object: pod([]), labels }).trace[0]!.matched;
    expect(matched({ tier: 'gold' })).toBe(true);
    expect(matched({ team: 'a' })).toBe(true);
    expect(matched({ team: 'a', env: 'dev' })).toBe(false);
    expect(matched({})).toBe(false);
  });

  it('field matchers treat a list value as matching when any element does (e.g. CI tags)', () => {
    const set = load(`${MEMORY_TEMPLATE}---
kind: K8sMemoryLimits
metadata: {name: m}
spec:
  parameters: {limit: 1Gi}
  match: {fields: [{path: tags, values: ["gpu-*"]}]}
`);
    expect(set.evaluate({ tags: ['docker', 'gpu-a100'] }).trace[0]!.matched).toBe(true);
    expect(set.evaluate({ tags: ['docker'] }).trace[0]!.matched).toBe(false);
  });
});

describe('the selector index', () => {
  /** Many constraints over several kinds and label selectors; a deterministic pseudo-random generator. */
  function setup(n: number, seed = 7) {
    let state = seed;
    const rand = (k: number) => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state % k;
    };
    const kinds = ['Pod', 'Deployment', 'Service'];
    const docs: unknown[] = [{
      apiVersion: 'verdict.dev/v1', kind: 'PolicyTemplate', metadata: { name: 't' },
      spec: { kind: 'Check', validate: [{ name: 'r', rule: { '!!': { var: 'labels.owner' } }, message: 'needs an owner' }] },
    }];
    for (let i = 0; i < n; i++) {
      const selector: Record<string, unknown> = rand(3) === 0
        ? { matchExpressions: [{ key: 'env', operator: 'In', values: [['prod', 'dev', 'test'][rand(3)], 'staging'] }] }
        : { matchLabels: { app: `app-${rand(20)}`, ...(rand(2) ? { tier: `t${rand(3)}` } : {}) } };
      const match: Record<string, unknown> = { labels: selector };
      if (rand(2)) match['fields'] = [{ path: 'kind', values: [kinds[rand(3)]] }];
      if (rand(10) === 0) match['when'] = { '!=': [{ var: 'namespace' }, 'kube-system'] };
      docs.push({ kind: 'Check', metadata: { name: `c${String(i).padStart(5, '0')}` }, spec: { match } });
    }
    const inputs = Array.from({ length: 200 }, () => ({
      kind: kinds[rand(3)], namespace: rand(4) ? 'default' : 'kube-system',
      labels: { app: `app-${rand(20)}`, tier: `t${rand(3)}`, ...(rand(2) ? { env: ['prod', 'dev', 'staging'][rand(3)] } : {}), ...(rand(2) ? { owner: 'x' } : {}) },
    }));
    return { set: compilePolicies(docs), inputs };
  }

  const summary = (d: Decision) => ({ allowed: d.allowed, violations: d.violations, matched: d.trace.filter((t) => t.matched).map((t) => t.policy) });

  it('gives exactly the decisions a full scan gives', () => {
    const { set, inputs } = setup(400);
    for (const input of inputs) expect(summary(set.evaluate(input))).toEqual(summary(set.evaluate(input, { explain: true })));
  });

  it('skips policies that cannot match and counts them', () => {
    const { set, inputs } = setup(400);
    const d = set.evaluate(inputs[0]);
    expect(d.skipped).toBeGreaterThan(300);
    expect(d.skipped + d.trace.length).toBe(400);
    expect(set.evaluate(inputs[0], { explain: true }).skipped).toBe(0);
  });
});

describe('dialects', () => {
  const dialect: MatchDialect = {
    name: 'demo',
    keys: ['teams'],
    compile: (block) => ({
      any: (block['teams'] as string[]).map((t) => ({ field: 'team', values: [t] })),
      where: '/teams',
      describe: `team in (${(block['teams'] as string[]).join(', ')})`,
    }),
  };

  it('report a described composite selector with its own words when it fails', () => {
    const set = compilePolicies([{ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'p' }, spec: { match: { teams: ['a', 'b'] } } }], { dialects: [dialect] });
    expect(set.evaluate({ team: 'c' })).toMatchObject({ trace: [], skipped: 1 }); // the index rules it out
    expect(set.evaluate({ team: 'c' }, { explain: true }).trace[0]!.mismatch).toEqual({ at: '/spec/match/teams', selector: 'team in (a, b)' });
    expect(set.evaluate({ team: 'b' }).trace[0]!.matched).toBe(true);
  });

  it('own their keys, and two dialects cannot claim one key', () => {
    expect(() => compilePolicies([], { dialects: [dialect, { ...dialect, name: 'other' }] })).toThrow('match dialect "other" claims key "teams", already owned by dialect "demo"');
    expect(() => compilePolicies([], { dialects: [{ ...dialect, keys: ['labels'] }] })).toThrow(/already owned by core/);
  });
});

describe('loadPolicySet', () => {
  it('accepts text, documents or a compiled set', () => {
    const text = `${MEMORY_TEMPLATE}---${MEMORY_CONSTRAINT}`;
    const fromText = loadPolicySet(text);
    expect(fromText.policies).toHaveLength(1);
    expect(loadPolicySet(fromText)).toBe(fromText);
    expect(loadPolicySet([{ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'x' }, spec: {} }]).policies[0]!.name).toBe('x');
  });

  it('names the source in problems', () => {
    expect(() => loadPolicySet('kind: [', { source: 'policies.yaml' })).toThrow(/policies\.yaml:1:/);
  });
});

describe('core stays free of Node built-ins', () => {
  it('imports nothing from node:* or Node module names in packages/core/src', () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const f of readdirSync(dir)) {
        const p = join(dir, f);
        if (statSync(p).isDirectory()) walk(p);
        else if (p.endsWith('.ts')) files.push(p);
      }
    };
    walk(join(__dirname, '..', 'src'));
    const offenders = files.filter((f) => /from ['"](node:|fs|path|os|crypto|http|https|net|url|util|buffer|stream|child_process)['"/]/.test(readFileSync(f, 'utf8')));
    expect(files.length).toBeGreaterThan(10);
    expect(offenders).toEqual([]);
  });
});
