import { describe, expect, it } from 'vitest';
import { createJobAdmission, JobAdmissionError, type ChainLevelOptions, type Level } from '@verdict/ci';
import { addTag, because, deny, job, policy, runners } from './helpers.js';

/** Every subset of project → group (2 levels, nearest first) → instance, in chain order. */
const LEVELS: Array<{ level: Level; name: string }> = [
  { level: 'project', name: 'project' },
  { level: 'group', name: 'acme/platform' },
  { level: 'group', name: 'acme' },
  { level: 'instance', name: 'instance' },
];
const SUBSETS = Array.from({ length: 2 ** LEVELS.length }, (_x, mask) => LEVELS.filter((_l, i) => mask & (1 << i)));

describe('controller chains', () => {
  function setup(levels: ReadonlyArray<{ level: Level; name: string }>) {
    // Each level adds a tag named after itself, requires the previous level's tag and gives a reason.
    const chain: ChainLevelOptions[] = levels.map(({ level, name }, i) => ({
      level,
      name,
      policies: [
        policy(`mark-${i}`, {
          mutate: [{ name: 'mark', patch: [{ op: 'add', path: '/tags/-', value: `seen-${name}` }] }],
          validate: i === 0 ? [] : [{ name: 'sees-previous', rule: { in: [`seen-${levels[i - 1]!.name}`, { var: 'tags' }] }, message: `${name} did not see ${levels[i - 1]!.name}'s tag` }],
          parameters: { reason: `${name} says {{controller.level}}` },
        }),
      ],
    }));
    return createJobAdmission({ chain });
  }

  it.each(SUBSETS.map((levels) => [levels.map((l) => l.name).join(' → ') || '(no level)', levels] as const))(
    'runs %s in order, each level seeing the tags the previous one added',
    (_label, levels) => {
      const { admit } = setup(levels);
      const response = admit(job(1, {}, ['docker']));
      expect(response.admission).toBe('accepted');
      expect(response.reason).toBe(levels.map((l) => `${l.name} says ${l.level}`).join('; '));
      if (levels.length === 0) expect(response.tags).toBeUndefined();
      else expect(response.tags).toEqual({ add: levels.map((l) => `seen-${l.name}`), remove: [] });
    },
  );

  it('stops at the first rejection: later levels do not run and earlier tags are dropped', () => {
    const { explain } = createJobAdmission({
      chain: [
        { level: 'project', policies: [addTag('zone', 'zone_a'), because('why', 'project ok')] },
        { level: 'group', policies: [deny('no', 'group says no')] },
        { level: 'instance', policies: [addTag('late', 'late'), because('late-why', 'instance ok')] },
      ],
    });
    const result = explain(job(7, {}, ['docker']));
    expect(result.response).toEqual({ id: 7, admission: 'rejected', reason: 'project ok; group says no' });
    expect(result.levels.map((l) => [l.name, l.admission])).toEqual([['project', 'accepted'], ['group', 'rejected']]);
    expect(result.tags).toEqual(['docker']);
  });

  it('concatenates reasons in chain order with "; ", skipping empty ones', () => {
    const { admit } = createJobAdmission({
      chain: [
        { level: 'project', policies: [because('a', 'first'), because('b', 'second')] },
        { level: 'group', policies: [because('blank', '   ')] },
        { level: 'group', name: 'parent', policies: [addTag('quiet', 'x')] },
        { level: 'instance', policies: [because('c', 'third')] },
      ],
    });
    expect(admit(job(1)).reason).toBe('first; second; third');
  });

  it('joins the messages of every denying policy of a level into the reason', () => {
    const { admit } = createJobAdmission({ chain: [{ level: 'instance', policies: [deny('a', 'no A'), deny('b', 'no B')] }] });
    expect(admit(job(1))).toEqual({ id: 1, admission: 'rejected', reason: 'no A; no B' });
  });

  it('adds warn-enforced violations to the reason of an accepted job', () => {
    const warn = policy('soft', { enforcementAction: 'warn', validate: [{ name: 'w', rule: false, message: 'this runner pool is deprecated' }] });
    const { admit } = createJobAdmission({ chain: [{ level: 'instance', policies: [warn, because('ok', 'allowed')] }] });
    expect(admit(job(1))).toEqual({ id: 1, admission: 'accepted', reason: 'allowed; this runner pool is deprecated' });
  });

  it('admits every job when the chain is empty', () => {
    expect(createJobAdmission({ chain: [] }).admit(job(1, {}, ['a']))).toEqual({ id: 1, admission: 'accepted', reason: '' });
  });

  it('lets a later level remove a tag an earlier level added (it is then reported nowhere)', () => {
    const { admit } = createJobAdmission({
      chain: [
        { level: 'project', policies: [addTag('add', 'zone_b')] },
        { level: 'instance', policies: [policy('drop', { match: { tags: ['zone_b'] }, mutate: [{ name: 'u', patch: [{ op: 'add', path: '/untag/-', value: 'zone_b' }] }] })] },
      ],
    });
    expect(admit(job(1, {}, ['docker']))).toEqual({ id: 1, admission: 'accepted', reason: '' });
  });

  it('applies each level as (current ∪ add) \\ remove, reported against the original tags', () => {
    const { explain } = createJobAdmission({
      chain: [
        { level: 'project', policies: [addTag('a', 'zone_a'), policy('rm', { mutate: [{ name: 'u', patch: [{ op: 'add', path: '/untag/-', value: 'windows' }] }] })] },
        { level: 'instance', policies: [addTag('b', 'gpu'), addTag('again', 'zone_a')] },
      ],
    });
    const result = explain(job(1, {}, ['docker', 'windows']));
    expect(result.tags).toEqual(['docker', 'zone_a', 'gpu']);
    expect(result.response.tags).toEqual({ add: ['zone_a', 'gpu'], remove: ['windows'] });
  });
});

describe('dry-run levels', () => {
  function setup(dryRun: boolean) {
    return createJobAdmission({
      chain: [
        { level: 'project', policies: [because('p', 'project ok')] },
        { level: 'group', name: 'acme', dryRun, policies: [deny('strict', 'project is not on the allow-list', { projects: ['other/*'], not: { projects: ['other/ok'] } }), deny('strict-too', 'no bad things', { projects: ['bad/*'] })] },
        { level: 'instance', policies: [because('i', 'instance ok')] },
      ],
    });
  }

  it('reports what a dry-run level would have rejected and lets the chain continue', () => {
    const response = setup(true).admit(job(1, { CI_PROJECT_PATH: 'bad/thing' }));
    expect(response).toEqual({ id: 1, admission: 'accepted', reason: 'project ok; dry run (acme): would reject: no bad things; instance ok' });
  });

  it('rejects the same job once the level is enforced', () => {
    expect(setup(false).admit(job(1, { CI_PROJECT_PATH: 'bad/thing' }))).toEqual({ id: 1, admission: 'rejected', reason: 'project ok; no bad things' });
  });

  it('says nothing for a dry-run level with nothing to report', () => {
    expect(setup(true).admit(job(1, { CI_PROJECT_PATH: 'good/thing' })).reason).toBe('project ok; instance ok');
  });

  it('reports tag and runner changes a dry-run level would make without making them', () => {
    const { explain } = createJobAdmission({
      chain: [
        { level: 'group', dryRun: true, policies: [addTag('zone', 'zone_a'), runners('pool', { accept: ['1'] }), because('why', 'zone A user')] },
        { level: 'instance', policies: [policy('sees', { validate: [{ name: 'untouched', rule: { '!': { in: ['zone_a', { var: 'tags' }] } }, message: 'dry run leaked a tag' }] })] },
      ],
      runners: [{ id: 1 }, { id: 2 }],
    });
    const result = explain(job(5, {}, ['docker']));
    expect(result.response).toEqual({ id: 5, admission: 'accepted', reason: 'dry run (group): would accept (add tags zone_a, restrict runners): zone A user' });
    expect(result.levels[0]!.eligibleRunners).toEqual({ accepted: ['1'], rejected: ['2'] });
    // Each level's own part of the reason: the dry-run report, and nothing for a level that is not a dry run.
    expect(result.levels.map((l) => l.report)).toEqual(['dry run (group): would accept (add tags zone_a, restrict runners): zone A user', '']);
  });

  it('reports that a dry-run level would leave no runner, without rejecting', () => {
    const { admit } = createJobAdmission({
      chain: [{ level: 'instance', dryRun: true, policies: [runners('none', { accept: [] })] }],
      runners: [{ id: 1 }],
    });
    expect(admit(job(5))).toEqual({
      id: 5, admission: 'accepted',
      reason: 'dry run (instance): would reject: no runner is left for this job (1 runner in the inventory): policy "none" (instance) accepts no runner',
    });
  });
});

describe('chain configuration', () => {
  const ok = [because('x', 'y')];

  it.each([
    [[{ level: 'instance', policies: ok }, { level: 'project', policies: ok }], '/chain/1/level', 'a project level after an instance level'],
    [[{ level: 'group', policies: ok }, { level: 'project', policies: ok }], '/chain/1/level', 'project level after a group'],
    [[{ level: 'project', policies: ok }, { level: 'project', policies: ok }], '/chain/1/level', 'one project'],
    [[{ level: 'instance', policies: ok }, { level: 'instance', policies: ok }], '/chain/1/level', 'one instance'],
    [[{ level: 'namespace', policies: ok }], '/chain/0/level', 'must be "project", "group" or "instance"'],
    [[{ level: 'group', name: '', policies: ok }], '/chain/0/name', 'non-empty string'],
    [[{ level: 'group', dryRun: 'yes', policies: ok }], '/chain/0/dryRun', 'true or false'],
    [[{ level: 'group' }], '/chain/0/policies', 'YAML/JSON text, a list of policy documents or a compiled policy set'],
    [['project'], '/chain/0', 'must be an object'],
  ])('rejects chain %j at %s', (chain, path, message) => {
    const error = catchError(() => createJobAdmission({ chain: chain as ChainLevelOptions[] }));
    expect(error).toBeInstanceOf(JobAdmissionError);
    expect(error).toMatchObject({ code: 'INVALID_CHAIN', path });
    expect(error.message).toContain(message);
  });

  it('accepts several group levels between project and instance', () => {
    const chain: ChainLevelOptions[] = ['project', 'group', 'group', 'group', 'instance'].map((level) => ({ level: level as Level, policies: ok }));
    expect(createJobAdmission({ chain }).admit(job(1)).reason).toBe('y; y; y; y; y');
  });

  it('rejects a chain that is not a list, and options that are not an object', () => {
    expect(catchError(() => createJobAdmission({ chain: 'project' as unknown as ChainLevelOptions[] }))).toMatchObject({ code: 'INVALID_CHAIN', path: '/chain' });
    expect(catchError(() => createJobAdmission(null as never))).toMatchObject({ code: 'INVALID_CHAIN' });
  });
});

function catchError(fn: () => unknown): JobAdmissionError {
  try {
    fn();
  } catch (error) {
    return error as JobAdmissionError;
  }
  throw new Error('expected an error');
}
