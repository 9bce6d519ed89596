import { describe, expect, it } from 'vitest';
import { createJobAdmission, type JobAdmissionOptions } from '@verdict/ci';
import { job, policy } from './helpers.js';

/** One violation per tag that is not allowed. */
const tagsAllowed = policy('tags', {
  validate: [{ name: 'each-tag', forEach: { var: 'tags' }, rule: { glob: ['team-*', { var: 'element' }] }, message: 'tag {{element}} is not allowed' }],
});

function setup(limits: JobAdmissionOptions['limits']) {
  return createJobAdmission({ chain: [{ level: 'instance', policies: [tagsAllowed] }], ...(limits ? { limits } : {}) });
}

describe('CI jobs and the evaluation limits', () => {
  it('rejects a job whose evaluation exceeds the cost budget (fail closed), naming the policy', () => {
    const tags = Array.from({ length: 1000 }, (_, i) => `team-${i}`);
    const answer = setup({ costBudget: 200 }).admit(job(1, {}, tags));
    expect(answer).toMatchObject({ id: 1, admission: 'rejected' });
    expect((answer as { reason: string }).reason).toMatch(/^policy "tags" failed: evaluation stopped in rule "each-tag" of Policy "tags": it exceeded the cost budget of 200 units/);
  });

  it('accepts the same job under the default budget', () => {
    const tags = Array.from({ length: 1000 }, (_, i) => `team-${i}`);
    expect(setup(undefined).admit(job(1, {}, tags))).toMatchObject({ admission: 'accepted' });
  });

  it('lists the first maxViolations reasons, then how many more', () => {
    const answer = setup({ maxViolations: 2 }).admit(job(1, {}, ['a', 'b', 'c', 'd']));
    expect(answer).toEqual({ id: 1, admission: 'rejected', reason: 'tag a is not allowed; tag b is not allowed; and 2 more violations' });
  });
});
