/**
 * A match (`glob`, `regex`, `starts_with`, `ends_with`, `in`) over a missing
 * value answers nothing, as comparisons do: `{"!": {"glob": ["*:latest",
 * {"var": "job.imag"}]}}` (a typo for `job.image`) used to pass every job.
 * Now the rule fails, negated or not, and the trace names the missing path.
 */
import { compileLogic, ComparisonError } from '@verdict/core';
import { describe, expect, it } from 'vitest';
import { load } from './helpers.js';

const MATCHES: ReadonlyArray<[op: string, rule: (value: unknown) => unknown, matching: string]> = [
  ['glob', (v) => ({ glob: ['**/*:latest', v] }), 'registry/app:latest'],
  ['regex', (v) => ({ regex: [':latest$', v] }), 'app:latest'],
  ['starts_with', (v) => ({ starts_with: [v, 'docker.io/'] }), 'docker.io/app'],
  ['ends_with', (v) => ({ ends_with: [v, ':latest'] }), 'app:latest'],
  ['in', (v) => ({ in: [v, ['app:latest', 'app:dev']] }), 'app:latest'],
];

describe('matches over a missing value', () => {
  const policy = (rule: unknown, match?: unknown) =>
    load(JSON.stringify({
      apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'no-latest' },
      spec: { ...(match ? { match } : {}), validate: [{ name: 'pinned', rule, message: 'image {{job.image}} must be pinned' }] },
    }));

  for (const [op, rule, matching] of MATCHES) {
    it(`"${op}" under "!" denies when the path it reads is missing, naming the path in the trace`, () => {
      const set = policy({ '!': rule({ var: 'job.imag' }) });
      const decision = set.evaluate({ job: { image: 'app:latest' } });
      expect(decision.allowed).toBe(false);
      expect(decision.errors).toEqual([]);
      expect(decision.violations.map((v) => v.message)).toEqual(['image app:latest must be pinned']);
      expect(decision.trace[0]!.rules[0]!.message).toContain(`"${op}" has no answer: job.imag is null (missing)`);
    });

    it(`"${op}" still answers for a present value, negated or not`, () => {
      const negated = policy({ '!': rule({ var: 'job.image' }) });
      expect(negated.evaluate({ job: { image: matching } }).allowed).toBe(false);
      expect(negated.evaluate({ job: { image: 'app@sha256:0123' } }).allowed).toBe(true);
      expect(compileLogic(rule({ var: 'x' })).apply({ x: matching })).toBe(true);
      expect(() => compileLogic(rule({ var: 'x' })).apply({})).toThrow(ComparisonError);
    });
  }

  it('lets a guard or a default decide for a value that may be missing', () => {
    const guarded = policy({ or: [{ '!': { exists: 'job.image' } }, { '!': { glob: ['**/*:latest', { var: 'job.image' }] } }] });
    expect(guarded.evaluate({ job: {} }).allowed).toBe(true);
    expect(guarded.evaluate({ job: { image: 'a/b:latest' } }).allowed).toBe(false);
    const defaulted = policy({ '!': { glob: ['**/*:latest', { var: ['job.image', ''] }] } });
    expect(defaulted.evaluate({ job: {} }).allowed).toBe(true);
  });

  it('keeps a missing pattern list or haystack as one that holds nothing', () => {
    expect(compileLogic({ in: ['a', { var: 'list' }] }).apply({})).toBe(false);
    expect(compileLogic({ glob: [{ var: 'patterns' }, 'a'] }).apply({})).toBe(false);
    expect(compileLogic({ ends_with: ['a', { var: 'suffixes' }] }).apply({})).toBe(false);
  });

  it('fails closed with a match error when a when selector matches a missing value', () => {
    const set = policy(true, { when: { '!': { starts_with: [{ var: 'object.metadata.namespace' }, 'kube-'] } } });
    const decision = set.evaluate({ object: { metadata: {} } });
    expect(decision.allowed).toBe(false);
    expect(decision.errors).toEqual([expect.objectContaining({ code: 'MATCH_ERROR', message: expect.stringContaining('"starts_with" has no answer: object.metadata.namespace is null (missing)') })]);
  });

  it('a CEL rule reading a missing field under "!" is already an error that fails closed (docs/concepts/rules.md)', () => {
    const set = load(JSON.stringify({
      apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'no-latest' },
      spec: { validate: [{ name: 'pinned', expression: "!object.spec.imag.endsWith(':latest')", message: 'pinned' }] },
    }));
    const decision = set.evaluate({ object: { spec: { image: 'app:latest' } } });
    expect(decision.allowed).toBe(false);
    expect(decision.errors.map((e) => e.message).join('\n')).toMatch(/no such key: imag/);
  });
});
