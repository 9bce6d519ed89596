import { describe, expect, it } from 'vitest';
import { compilePolicies, PolicyLoadError } from '@verdict/core';
import * as ci from '@verdict/ci';
import { createJobAdmission, JobAdmissionError, jobFor, loadJobPolicies } from '@verdict/ci';
import { because, job, policy } from './helpers.js';

describe('loadJobPolicies', () => {
  it('compiles text with the ci dialect and mutations addressed from the job input root', () => {
    const set = loadJobPolicies(`
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: zone-a}
spec:
  match: {users: [alice]}
  mutate: [{name: add, patch: [{op: add, path: /tags/-, value: zone_a}]}]
`);
    expect(set.mutationTarget).toBe('');
    expect(set.evaluate(jobFor({ id: 1, variables: { GITLAB_USER_LOGIN: 'alice' }, tags: ['docker'] })).patch).toEqual([{ op: 'add', path: '/tags/-', value: 'zone_a' }]);
  });

  it('returns a compiled set as it is', () => {
    const set = loadJobPolicies([because('a', 'b')]);
    expect(loadJobPolicies(set)).toBe(set);
  });

  it('reports malformed reason parameters with every other problem, in source order', () => {
    const text = [
      'apiVersion: verdict.dev/v1', 'kind: Policy', 'metadata: {name: p}', 'spec:',
      '  parameters: {reason: 42}',
      '  parameterSelection:',
      '    - parameters: {reason: "user {{user.login"}',
      '  validate: [{name: r, rule: {nope: 1}, message: m}]',
    ].join('\n');
    try {
      loadJobPolicies(text, { source: 'zones.yaml' });
      expect.unreachable('the policy should not load');
    } catch (error) {
      expect(error).toBeInstanceOf(PolicyLoadError);
      expect((error as PolicyLoadError).problems.map((p) => [p.path, p.line, p.source])).toEqual([
        ['/spec/parameters/reason', 5, 'zones.yaml'],
        ['/spec/parameterSelection/0/parameters/reason', 7, 'zones.yaml'],
        ['/spec/validate/0/rule/nope', 8, 'zones.yaml'],
      ]);
      expect((error as PolicyLoadError).problems[0]!.message).toBe('parameter "reason" must be a string (a message template such as "user {{user.login}} is in zone A")');
      expect((error as PolicyLoadError).problems[1]!.message).toContain('parameter "reason" is not a valid message template: unclosed "{{"');
    }
  });

  it('rejects a job when a precompiled set carries a reason that is not a template', () => {
    const set = compilePolicies([policy('p', { parameters: { reason: 'broken {{' } })], { mutationTarget: '' });
    const { explain } = createJobAdmission({ chain: [{ level: 'group', policies: set }] });
    const result = explain(job(1));
    expect(result.response.admission).toBe('rejected');
    expect(result.response.reason).toMatch(/^policy "p" \(group\): parameter "reason" is not a valid message template: /);
    expect(result.error?.code).toBe('EVALUATION');
  });

  it('refuses, in createJobAdmission, a set compiled for another mutation target', () => {
    const set = compilePolicies([because('p', 'x')], { mutationTarget: '/object' });
    expect(() => createJobAdmission({ chain: [{ level: 'instance', policies: set }] })).toThrow(
      expect.objectContaining({ code: 'INVALID_CHAIN', path: '/chain/0/policies', message: expect.stringContaining('compile them with loadJobPolicies') as unknown }) as Error,
    );
  });
});

describe('the public surface of @verdict/ci', () => {
  it('exports exactly these runtime values (each is tested in this folder)', () => {
    expect(Object.keys(ci).sort()).toEqual([
      'JobAdmissionError', 'WELL_KNOWN_VARIABLES', 'ciMatchDialect', 'createJobAdmission', 'fromJobEvent', 'jobFor', 'loadJobPolicies',
    ]);
  });

  it('JobAdmissionError is a VerdictError with a stable JSON form', () => {
    const error = new JobAdmissionError('INVALID_TAGS', '"tags" must be a list of strings', { path: '/tags' });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('JobAdmissionError');
    expect(error.toJSON()).toEqual({ code: 'INVALID_TAGS', message: '"tags" must be a list of strings', path: '/tags' });
    expect(JobAdmissionError.job('MISSING_ID', 'no id', '/id')).toMatchObject({ code: 'MISSING_ID', path: '/id', problems: [] });
  });
});
