import { describe, expect, it } from 'vitest';
import { createJobAdmission } from '@verdict/ci';
import { job, policy } from './helpers.js';

/** One instance-level policy with the given patch; answers a job tagged `tags`. */
function retag(patch: unknown[], tags: string[] = ['linux', 'eu-west'], extra: Record<string, unknown> = {}) {
  const { explain } = createJobAdmission({ chain: [{ level: 'instance', policies: [policy('retag', { mutate: [{ name: 'm', patch }], ...extra })] }] });
  return explain(job(245, {}, tags));
}

describe('tag mutations', () => {
  it('reports an appended tag as added', () => {
    const result = retag([{ op: 'add', path: '/tags/-', value: 'zone_a' }]);
    expect(result.response.tags).toEqual({ add: ['zone_a'], remove: [] });
    expect(result.tags).toEqual(['linux', 'eu-west', 'zone_a']);
  });

  it('removes a tag by name through /untag', () => {
    const result = retag([{ op: 'add', path: '/untag/-', value: 'eu-west' }, { op: 'add', path: '/untag/-', value: 'not-there' }]);
    expect(result.response.tags).toEqual({ add: [], remove: ['eu-west'] });
    expect(result.tags).toEqual(['linux']);
  });

  it('removes a tag by index', () => {
    expect(retag([{ op: 'remove', path: '/tags/0' }]).response.tags).toEqual({ add: [], remove: ['linux'] });
  });

  it('reports a replaced list as its tags added and the dropped ones removed (the proposal\'s job 245)', () => {
    const result = retag([{ op: 'replace', path: '/tags', value: ['linux', 'us-west'] }]);
    expect(result.response.tags).toEqual({ add: ['linux', 'us-west'], remove: ['eu-west'] });
    expect(result.tags).toEqual(['linux', 'us-west']);
  });

  it('reports a replaced element as one tag removed and one added', () => {
    expect(retag([{ op: 'replace', path: '/tags/1', value: 'us-west' }]).response.tags).toEqual({ add: ['us-west'], remove: ['eu-west'] });
  });

  it('keeps no duplicates when a tag the job has is added again', () => {
    const result = retag([{ op: 'add', path: '/tags/-', value: 'linux' }]);
    expect(result.tags).toEqual(['linux', 'eu-west']);
    expect(result.response.tags).toEqual({ add: ['linux'], remove: [] });
  });

  it('lets removal win over addition of the same tag in one level', () => {
    const result = retag([{ op: 'add', path: '/tags/-', value: 'zone_a' }, { op: 'add', path: '/untag/-', value: 'zone_a' }]);
    expect(result.response.tags).toBeUndefined();
    expect(result.tags).toEqual(['linux', 'eu-west']);
  });

  it('builds templated tags from the job input', () => {
    const result = retag([{ op: 'add', path: '/tags/-', value: 'uid-{{variables.GITLAB_USER_ID | default "none"}}' }]);
    expect(result.response.tags).toEqual({ add: ['uid-none'], remove: [] });
  });

  it('ignores move and copy within the tags except for what they add or drop', () => {
    expect(retag([{ op: 'move', from: '/tags/0', path: '/tags/-' }]).response.tags).toBeUndefined();
    expect(retag([{ op: 'copy', from: '/tags/0', path: '/untag/-' }]).response.tags).toEqual({ add: [], remove: ['linux'] });
  });

  it('applies the mutations of several policies of one level in policy order', () => {
    const { admit } = createJobAdmission({
      chain: [{
        level: 'group',
        policies: [
          policy('b-second', { order: 2, mutate: [{ name: 'm', when: { in: ['zone_a', { var: 'tags' }] }, patch: [{ op: 'add', path: '/tags/-', value: 'after-zone' }] }] }),
          policy('a-first', { order: 1, mutate: [{ name: 'm', patch: [{ op: 'add', path: '/tags/-', value: 'zone_a' }] }] }),
        ],
      }],
    });
    expect(admit(job(1)).tags).toEqual({ add: ['zone_a', 'after-zone'], remove: [] });
  });
});

describe('mutations outside the tags', () => {
  it.each([
    [[{ op: 'add', path: '/variables/EXTRA', value: 'x' }], '/variables/EXTRA'],
    [[{ op: 'replace', path: '/id', value: 1 }], '/id'],
    [[{ op: 'copy', from: '/controller/name', path: '/tags/-' }], '/controller/name'],
  ])('reject the job when a policy patches %j', (patch, path) => {
    const result = retag(patch);
    expect(result.response).toEqual({ id: 245, admission: 'rejected', reason: `policy "retag" (instance) patched ${path}; CI policies may change only the job's tags (/tags, /untag)` });
    expect(result.error).toMatchObject({ code: 'INVALID_MUTATION', path });
  });

  it.each([
    [[{ op: 'add', path: '/tags/-', value: '' }], 'a list'],
    [[{ op: 'add', path: '/tags/-', value: 7 }], 'a list'],
    [[{ op: 'replace', path: '/tags', value: 'docker' }], 'a string "docker"'],
  ])('reject the job when tags stop being a list of non-empty strings: %j', (patch, got) => {
    const result = retag(patch);
    expect(result.response.admission).toBe('rejected');
    expect(result.response.reason).toBe(`tags must stay a list of non-empty strings, but the mutations of policy "retag" (instance) left ${got}`);
  });

  it('rejects the job when untag stops being a list of strings', () => {
    expect(retag([{ op: 'replace', path: '/untag', value: 'eu-west' }]).response.reason).toBe(
      'untag must stay a list of non-empty strings, but the mutations of policy "retag" (instance) left a string "eu-west"',
    );
  });
});

describe('engine errors in mutations', () => {
  it('reject the job with a one-line reason naming the operation and its path', () => {
    const result = retag([{ op: 'copy', from: '/project/path', path: '/tags/-' }]);
    expect(result.response).toEqual({
      id: 245, admission: 'rejected',
      reason: 'policy "retag" failed: mutate rule "m" was not applied: cannot copy at /tags/- from /project/path: the "from" path does not exist',
    });
  });
});
