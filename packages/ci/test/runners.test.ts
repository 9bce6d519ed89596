import { describe, expect, it } from 'vitest';
import { compilePolicies } from '@verdict/core';
import { createJobAdmission, JobAdmissionError, type ChainLevelOptions, type Runner } from '@verdict/ci';
import { job, policy, runners } from './helpers.js';

const FLEET: Runner[] = [
  { id: 101, tags: ['DiscoveryOne', 'gpu'] },
  { id: '102', tags: ['tugNostromo'] },
  { id: 103, tags: ['MVSeamus', 'gpu'], description: 'extra fields are ignored' },
];

function admitWith(chain: ChainLevelOptions[], inventory: readonly Runner[] | null = FLEET) {
  return createJobAdmission(inventory ? { chain, runners: inventory } : { chain });
}

describe('runner filtering with an inventory', () => {
  it('accepts by id and by tag glob, listing the rest as rejected (ids as strings, inventory order)', () => {
    const { admit } = admitWith([{ level: 'instance', policies: [runners('access', { accept: [103], acceptTags: ['tug*'] })] }]);
    expect(admit(job(1))).toEqual({ id: 1, admission: 'accepted', runners: { accepted_ids: ['102', '103'], rejected_ids: ['101'] }, reason: '' });
  });

  it('intersects accepted sets within a level and across levels', () => {
    const { admit } = admitWith([
      { level: 'group', policies: [runners('gpu', { acceptTags: ['gpu'] }), runners('not-discovery', { accept: ['101', '103', '102'] })] },
      { level: 'instance', policies: [runners('ships', { acceptTags: ['MV*', 'Disc*'] })] },
    ]);
    expect(admit(job(1)).runners).toEqual({ accepted_ids: ['101', '103'], rejected_ids: ['102'] });
  });

  it('unites rejected sets and subtracts them from the accepted ones', () => {
    const { admit } = admitWith([
      { level: 'project', policies: [runners('no-gpu-1', { reject: ['101'] })] },
      { level: 'group', policies: [runners('gpu', { acceptTags: ['gpu'] })] },
      { level: 'instance', policies: [runners('no-tug', { rejectTags: ['tugNostromo'] })] },
    ]);
    expect(admit(job(1)).runners).toEqual({ accepted_ids: ['103'], rejected_ids: ['101', '102'] });
  });

  it('lists only rejected ids when no policy accepts, so new runners stay usable', () => {
    const { admit } = admitWith([{ level: 'instance', policies: [runners('no-gpu', { rejectTags: ['gpu'] })] }]);
    expect(admit(job(1)).runners).toEqual({ accepted_ids: [], rejected_ids: ['101', '103'] });
  });

  it('omits runners when no matched policy restricts them', () => {
    const { admit } = admitWith([{ level: 'instance', policies: [runners('only-alice', { accept: ['101'] }, { users: ['alice'] })] }]);
    expect(admit(job(1, { GITLAB_USER_LOGIN: 'bob' }))).toEqual({ id: 1, admission: 'accepted', reason: '' });
  });

  it('rejects the job when no runner is left, even though every level accepted', () => {
    const { admit } = admitWith([
      { level: 'group', policies: [runners('gpu', { acceptTags: ['gpu'] }, { users: ['*'] })] },
      { level: 'instance', policies: [runners('no-gpu', { rejectTags: ['gpu'] })] },
    ]);
    expect(admit(job(1, { GITLAB_USER_LOGIN: 'alice' }, ['gpu']))).toEqual({
      id: 1, admission: 'rejected',
      reason: 'no runner is left for this job (3 runners in the inventory): policy "gpu" (group) accepts runners tagged gpu, policy "no-gpu" (instance) rejects runners tagged gpu',
    });
  });

  it('treats an empty accept list as "no runner" and rejects', () => {
    const { explain } = admitWith([{ level: 'instance', policies: [runners('nothing', { accept: [] })] }, ]);
    const result = explain(job(1, {}, ['docker']));
    expect(result.response).toEqual({ id: 1, admission: 'rejected', reason: 'no runner is left for this job (3 runners in the inventory): policy "nothing" (instance) accepts no runner' });
    expect(result.tags).toEqual(['docker']);
  });

  it('stops the chain at the level that leaves no runner', () => {
    const { explain } = admitWith([
      { level: 'group', policies: [runners('none', { accept: ['999'] })] },
      { level: 'instance', policies: [runners('late', { accept: ['101'] })] },
    ]);
    expect(explain(job(1)).levels.map((l) => l.level)).toEqual(['group']);
  });

  it('gives default runners with overrides per group through parameterSelection', () => {
    const pools = policy('pools', {
      parameters: { runners: { acceptTags: ['tugNostromo'] } },
      parameterSelection: [{ match: { groups: ['research'] }, parameters: { runners: { acceptTags: ['gpu'] } } }],
      merge: { '/runners/acceptTags': 'replace' },
    });
    const { admit } = admitWith([{ level: 'instance', policies: [pools] }]);
    expect(admit(job(1, { CI_PROJECT_PATH: 'web/shop' })).runners).toEqual({ accepted_ids: ['102'], rejected_ids: ['101', '103'] });
    expect(admit(job(2, { CI_PROJECT_PATH: 'research/ml/model' })).runners).toEqual({ accepted_ids: ['101', '103'], rejected_ids: ['102'] });
  });

  it('reads the inventory from a function once per request', () => {
    let calls = 0;
    let fleet: Runner[] = [{ id: 1, tags: ['a'] }];
    const { admit } = createJobAdmission({
      chain: [{ level: 'instance', policies: [runners('a', { acceptTags: ['a'] })] }],
      runners: () => {
        calls++;
        return fleet;
      },
    });
    expect(admit([job(1), job(2)]).map((r) => r.runners)).toEqual([{ accepted_ids: ['1'], rejected_ids: [] }, { accepted_ids: ['1'], rejected_ids: [] }]);
    fleet = [{ id: 1, tags: ['b'] }, { id: 2, tags: ['a'] }];
    expect(admit(job(3)).runners).toEqual({ accepted_ids: ['2'], rejected_ids: ['1'] });
    expect(calls).toBe(2);
  });
});

describe('runner filtering without an inventory', () => {
  it('intersects accepted id lists and unites rejected ones', () => {
    const { admit } = admitWith([
      { level: 'group', policies: [runners('a', { accept: ['1', 2, '3'] })] },
      { level: 'instance', policies: [runners('b', { accept: [3, 2, 4], reject: ['2', '9'] })] },
    ], null);
    expect(admit(job(1)).runners).toEqual({ accepted_ids: ['3'], rejected_ids: ['2', '9'] });
  });

  it('rejects when the accepted ids cancel out', () => {
    const { admit } = admitWith([{ level: 'instance', policies: [runners('a', { accept: ['1'] }), runners('b', { reject: ['1'] })] }], null);
    expect(admit(job(1))).toEqual({ id: 1, admission: 'rejected', reason: 'no runner is left for this job: policy "a" (instance) accepts runners 1, policy "b" (instance) rejects runners 1' });
  });

  it('never rejects for rejected ids alone', () => {
    const { admit } = admitWith([{ level: 'instance', policies: [runners('b', { reject: ['1', 2] })] }], null);
    expect(admit(job(1))).toEqual({ id: 1, admission: 'accepted', runners: { accepted_ids: [], rejected_ids: ['1', '2'] }, reason: '' });
  });

  it('rejects jobs a tag-based rule applies to, saying that an inventory is needed', () => {
    const { explain } = admitWith([{ level: 'instance', policies: [runners('by-tag', { acceptTags: ['gpu'] })] }], null);
    const result = explain(job(1));
    expect(result.response.reason).toBe('policy "by-tag" (instance) selects runners by tag, which needs a runner inventory: pass "runners" to createJobAdmission (in a suite, evaluateInput or verdict eval: the ci: {runners} option)');
    expect(result.error).toMatchObject({ code: 'INVALID_RUNNER_PARAMETERS' });
  });
});

describe('the runners parameter and the inventory are validated', () => {
  it.each([
    [{ accept: 'a' }, '/spec/parameters/runners/accept', 'must be a list of runner ids'],
    [{ acceptTags: [1] }, '/spec/parameters/runners/acceptTags', 'must be a list of tag globs'],
    [{ accpet: ['1'] }, '/spec/parameters/runners/accpet', 'unknown key "accpet"'],
    [['1'], '/spec/parameters/runners', 'must be an object {accept, acceptTags, reject, rejectTags}'],
  ])('refuses runners %j at load time', (value, path, message) => {
    const error = catchError(() => admitWith([{ level: 'instance', policies: [runners('bad', value as never)] }]));
    expect(error).toMatchObject({ code: 'POLICY_LOAD' });
    expect(error.problems).toEqual([expect.objectContaining({ path, message: expect.stringContaining(message) as unknown, name: 'Policy/bad' })]);
  });

  it('finds a bad runners parameter in a parameterSelection entry', () => {
    const bad = policy('bad', { parameterSelection: [{ parameters: {} }, { parameters: { runners: { reject: [true] } } }] });
    expect(catchError(() => admitWith([{ level: 'instance', policies: [bad] }])).problems[0]?.path).toBe('/spec/parameterSelection/1/parameters/runners/reject');
  });

  it('rejects the job when a precompiled set carries a bad runners parameter', () => {
    const set = compilePolicies([runners('bad', { accept: 'x' } as never)], { mutationTarget: '' });
    const { admit } = admitWith([{ level: 'instance', policies: set }]);
    expect(admit(job(1))).toEqual({ id: 1, admission: 'rejected', reason: 'policy "bad" (instance): parameter runners.accept must be a list of runner ids (got a string "x")' });
  });

  it.each([
    ['a string', 'runners', '/runners', 'must be a list of {id, tags}'],
    ['an entry without id', [{ tags: [] }], '/runners/0/id', 'runner 0 must be an object with a string or number "id"'],
    ['an entry that is not an object', ['r1'], '/runners/0', 'got a string "r1"'],
    ['duplicate ids', [{ id: 1 }, { id: '1' }], '/runners/1/id', 'runner id "1" appears twice'],
    ['tags that are not strings', [{ id: 1, tags: 'gpu' }], '/runners/0/tags', 'runner "1" must have "tags" as a list of strings'],
  ])('refuses an inventory with %s', (_what, inventory, path, message) => {
    const error = catchError(() => createJobAdmission({ chain: [], runners: inventory as never }));
    expect(error).toMatchObject({ code: 'INVALID_RUNNERS', path });
    expect(error.message).toContain(message);
  });

  it('throws INVALID_RUNNERS from admit when the inventory function returns a bad inventory', () => {
    const { admit } = createJobAdmission({ chain: [], runners: () => [{ id: null }] as never });
    expect(catchError(() => admit(job(1)))).toMatchObject({ code: 'INVALID_RUNNERS', path: '/runners()/0/id' });
  });
});

function catchError(fn: () => unknown): JobAdmissionError {
  try {
    fn();
  } catch (error) {
    if (!(error instanceof JobAdmissionError)) throw error;
    return error;
  }
  throw new Error('expected an error');
}
