/**
 * A chain level's policy text names its file in load
 * problems, with line and column; CI match keys without the CI dialect say where they come from.
 */
import { describe, expect, it } from 'vitest';
import { compilePolicies, type PolicyLoadError, adapterOfMatchKey } from '@verdict/core';
import { ciMatchDialect, createJobAdmission, JobAdmissionError } from '@verdict/ci';

const TEXT = `apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: p}
spec:
  validate: [{name: r, rule: {quantiy: 1}, message: m}]
`;

describe('source of a chain level', () => {
  const setup = (level: Record<string, unknown>) => {
    try {
      createJobAdmission({ chain: [{ level: 'project', policies: TEXT, ...level }] as never });
    } catch (error) {
      expect(error).toBeInstanceOf(JobAdmissionError);
      return error as JobAdmissionError;
    }
    return expect.unreachable('expected a JobAdmissionError');
  };

  it('names the file given as source, with line and column', () => {
    expect(setup({ source: 'project.yaml' }).message).toContain('project.yaml:5:31 (Policy/p) at /spec/validate/0/rule/quantiy: unknown operation "quantiy"');
  });

  it('falls back to the level name', () => {
    expect(setup({ name: 'acme/web' }).message).toContain('acme/web:5:31 (Policy/p)');
  });

  it('refuses a source that is not a non-empty string', () => {
    expect(setup({ source: '' }).message).toBe('chain[0].source must be a non-empty string, the file name of its policies (got a string "")');
  });
});

describe('ci match keys without the dialect', () => {
  it('say which package provides them and how to load with it', () => {
    for (const key of ciMatchDialect.keys) {
      expect(adapterOfMatchKey(key), key).toBe('ci');
      const doc = { apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'p' }, spec: { match: { [key]: {} } } };
      try {
        compilePolicies([doc]);
        expect.unreachable(`${key} loaded without its dialect`);
      } catch (error) {
        expect((error as PolicyLoadError).problems[0]!.message, key).toBe(`unknown match field "${key}": it belongs to the CI job match vocabulary of @verdict/ci, which is not registered here; load them with loadJobPolicies or createJobAdmission, or pass {dialects: [ciMatchDialect]} to compilePolicies`);
      }
    }
  });
});
