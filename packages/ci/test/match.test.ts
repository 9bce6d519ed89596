import { describe, expect, it } from 'vitest';
import { compilePolicies, PolicyLoadError } from '@verdict/core';
import { ciMatchDialect, jobFor, loadJobPolicies } from '@verdict/ci';
import { because, policy } from './helpers.js';

const ALICE = jobFor({
  id: 1,
  tags: ['docker', 'gpu-large'],
  variables: {
    CI_PROJECT_ID: 42, CI_PROJECT_PATH: 'acme/platform/api', GITLAB_USER_ID: 7, GITLAB_USER_LOGIN: 'alice',
    CI_COMMIT_REF_NAME: 'release/1.2', CI_PIPELINE_SOURCE: 'schedule', CI_COMMIT_REF_PROTECTED: 'true',
  },
});

describe('the ci match dialect', () => {
  function matches(match: Record<string, unknown>, input = ALICE): boolean {
    const set = loadJobPolicies([because('p', 'matched', match)]);
    return set.evaluate(input).trace[0]?.matched ?? false;
  }

  it.each([
    [{ projects: ['acme/platform/api'] }, true],
    [{ projects: ['acme/*/api'] }, true],
    [{ projects: ['acme/*'] }, false],
    [{ projects: ['acme/**'] }, true],
    [{ projects: [42] }, true],
    [{ projects: '42' }, true],
    [{ projects: [43, 'other/*'] }, false],
    [{ groups: ['acme'] }, true],
    [{ groups: ['acme/platform'] }, true],
    [{ groups: ['acme/plat*'] }, true],
    [{ groups: ['platform'] }, false],
    [{ users: ['alice'] }, true],
    [{ users: ['al*'] }, true],
    [{ users: [7] }, true],
    [{ users: ['bob', 8] }, false],
    [{ tags: ['gpu-*'] }, true],
    [{ tags: ['windows'] }, false],
    [{ refs: ['release/*'] }, true],
    [{ refs: ['main'] }, false],
    [{ sources: ['schedule', 'web'] }, true],
    [{ sources: ['push'] }, false],
    [{ variables: 'CI_COMMIT_REF_PROTECTED=true' }, true],
    [{ variables: { matchLabels: { GITLAB_USER_LOGIN: 'bob' } } }, false],
    [{ variables: { matchExpressions: [{ key: 'CI_PIPELINE_SOURCE', operator: 'In', values: ['schedule'] }] } }, true],
    [{ groups: ['acme'], users: ['alice'], tags: ['docker'] }, true],
    [{ groups: ['acme'], users: ['bob'] }, false],
    [{ not: { users: ['bob'] } }, true],
    [{ any: [{ users: ['bob'] }, { refs: ['release/*'] }] }, true],
  ])('%j matches alice\'s job: %s', (match, expected) => {
    expect(matches(match)).toBe(expected);
  });

  it('works in parameterSelection entries', () => {
    const zones = policy('zones', {
      parameters: { reason: 'default zone' },
      parameterSelection: [{ name: 'zone-a', match: { users: ['alice'] }, parameters: { reason: 'zone A' } }],
    });
    const set = loadJobPolicies([zones]);
    expect(set.evaluate(ALICE).trace[0]?.selection?.matched).toEqual([{ index: 0, name: 'zone-a' }]);
    expect(set.evaluate(jobFor({ id: 2, variables: { GITLAB_USER_LOGIN: 'bob' } })).trace[0]?.parameters).toEqual({ reason: 'default zone' });
  });

  it('describes its selectors in traces', () => {
    const set = loadJobPolicies([because('p', 'x', { projects: ['other/*'] })]);
    expect(set.evaluate(ALICE).trace[0]?.mismatch).toEqual({ at: '/spec/match/projects', selector: 'project in (other/*)' });
  });

  it.each([
    [{ projects: [] }, '/spec/match/projects', '"projects" takes a non-empty list of names, globs or ids (got an empty list)'],
    [{ users: { alice: true } }, '/spec/match/users', '"users" takes a non-empty list of names, globs or ids (got {"alice":true})'],
    [{ tags: ['ok', null] }, '/spec/match/tags/1', '"tags" entries must be non-empty strings or numbers (got null)'],
    [{ variables: 'not a selector!!' }, '/spec/match/variables', ''],
  ])('refuses %j at load time', (match, path, message) => {
    try {
      loadJobPolicies([because('p', 'x', match)]);
      expect.unreachable('the policy should not load');
    } catch (error) {
      expect(error).toBeInstanceOf(PolicyLoadError);
      const problem = (error as PolicyLoadError).problems[0]!;
      expect(problem.path.startsWith(path)).toBe(true);
      expect(problem.message).toContain(message);
    }
  });

  it('can be registered with core directly', () => {
    const set = compilePolicies([because('p', 'x', { users: ['alice'] })], { dialects: [ciMatchDialect] });
    expect(set.evaluate(ALICE).trace[0]?.matched).toBe(true);
    expect(ciMatchDialect.keys).toEqual(['projects', 'groups', 'users', 'tags', 'refs', 'sources', 'variables']);
  });
});
