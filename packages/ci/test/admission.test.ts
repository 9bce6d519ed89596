import { describe, expect, it } from 'vitest';
import { createJobAdmission, JobAdmissionError, loadJobPolicies, type JobPayload } from '@verdict/ci';
import { addTag, because, deny, job, policy } from './helpers.js';

describe('admit: request and response shapes', () => {
  function setup() {
    return createJobAdmission({
      chain: [{ level: 'instance', policies: [deny('no-bad', 'you have no power here', { projects: ['do-bad-things', 666] }), because('ok', 'allowed')] }],
    });
  }

  it('answers a list with a list in the same order and one job with one response', () => {
    const { admit } = setup();
    const list = admit([job(1, { CI_PROJECT_ID: 1 }), job(666, { CI_PROJECT_ID: 666 })]);
    expect(list).toEqual([
      { id: 1, admission: 'accepted', reason: 'allowed' },
      { id: 666, admission: 'rejected', reason: 'you have no power here' },
    ]);
    expect(admit(job('abc', { CI_PROJECT_ID: 1 }))).toEqual({ id: 'abc', admission: 'accepted', reason: 'allowed' });
    expect(admit([])).toEqual([]);
  });

  it('parses JSON text: a list gives a list, an object gives one response', () => {
    const { admit } = setup();
    expect(admit('[{"id": 666, "variables": {"CI_PROJECT_ID": 666}, "tags": ["secure-runner"]}]')).toEqual([
      { id: 666, admission: 'rejected', reason: 'you have no power here' },
    ]);
    expect(admit('{"id": 1, "variables": [{"key": "CI_PROJECT_ID", "value": "1"}]}')).toEqual({ id: 1, admission: 'accepted', reason: 'allowed' });
  });

  it('throws INVALID_JSON for text that is not JSON', () => {
    const { admit } = setup();
    expect(() => admit('[{"id": 1,')).toThrow(JobAdmissionError);
    expect(catchError(() => admit('not json'))).toMatchObject({ code: 'INVALID_JSON', name: 'JobAdmissionError' });
    expect(catchError(() => admit('not json')).message).toMatch(/^the request is not JSON \(.+\); expected a job \{id, variables, tags\} or a list of jobs$/);
  });

  it.each([['42'], ['null'], ['"job"'], ['true']])('throws INVALID_PAYLOAD for JSON %s', (text) => {
    expect(catchError(() => setup().admit(text))).toMatchObject({ code: 'INVALID_PAYLOAD' });
  });

  it('throws INVALID_PAYLOAD for a value that is neither a job nor a list', () => {
    expect(catchError(() => setup().admit(7 as never))).toMatchObject({ code: 'INVALID_PAYLOAD', message: expect.stringContaining('got the number 7') as unknown });
  });

  it('never modifies the request', () => {
    const { admit } = createJobAdmission({ chain: [{ level: 'group', policies: [addTag('z', 'zone_a')] }] });
    const request = [job(1, { A: 1 }, ['docker'])];
    const copy = structuredClone(request);
    admit(request);
    expect(request).toEqual(copy);
  });

  it('omits tags and runners when empty and orders keys id, admission, tags, runners, reason', () => {
    const { admit } = createJobAdmission({ chain: [{ level: 'group', policies: [addTag('z', 'zone_a'), policy('r', { parameters: { runners: { reject: ['9'] } } })] }] });
    expect(Object.keys(admit(job(1)))).toEqual(['id', 'admission', 'tags', 'runners', 'reason']);
    expect(Object.keys(createJobAdmission({ chain: [] }).admit(job(1)))).toEqual(['id', 'admission', 'reason']);
  });
});

describe('admit: bad jobs', () => {
  function setup() {
    return createJobAdmission({ chain: [{ level: 'instance', policies: [because('ok', 'fine')] }] });
  }

  it.each([
    ['a job that is not an object', 'docker', null, 'INVALID_JOB', 'invalid job: a job must be an object {id, variables, tags} (got a string "docker")'],
    ['a job that is a list', [1], null, 'INVALID_JOB', 'invalid job: a job must be an object {id, variables, tags} (got a list)'],
    ['a missing id', { tags: [] }, null, 'MISSING_ID', 'invalid job: the job has no "id"; expected a job id such as 123'],
    ['a null id', { id: null }, null, 'MISSING_ID', 'invalid job: the job has no "id"; expected a job id such as 123'],
    ['a negative id', { id: -1 }, null, 'INVALID_ID', 'invalid job: "id" must be a non-negative integer or a non-empty string (got the number -1)'],
    ['a fractional id', { id: 1.5 }, null, 'INVALID_ID', 'invalid job: "id" must be a non-negative integer or a non-empty string (got the number 1.5)'],
    ['a blank id', { id: ' ' }, null, 'INVALID_ID', 'invalid job: "id" must be a non-negative integer or a non-empty string (got a string " ")'],
    ['an object id', { id: { n: 1 } }, null, 'INVALID_ID', 'invalid job: "id" must be a non-negative integer or a non-empty string (got an object)'],
    ['tags that are a string', { id: 3, tags: 'docker' }, 3, 'INVALID_TAGS', 'invalid job: "tags" must be a list of strings (got a string "docker")'],
    ['a tag that is a number', { id: 3, tags: ['docker', 7] }, 3, 'INVALID_TAGS', 'invalid job: "tags" must be a list of non-empty strings (got the number 7 at index 1)'],
    ['an empty tag', { id: 3, tags: [''] }, 3, 'INVALID_TAGS', 'invalid job: "tags" must be a list of non-empty strings (got a string "" at index 0)'],
    ['variables that are a string', { id: 3, variables: 'A=1' }, 3, 'INVALID_VARIABLES', 'invalid job: "variables" must be an object of names to values or a list of {key, value} (got a string "A=1")'],
    ['a variable whose value is an object', { id: 3, variables: { A: { b: 1 } } }, 3, 'INVALID_VARIABLES', 'invalid job: variable "A" must have a string or number value (got an object)'],
    ['a variable whose value is null', { id: 3, variables: { A: null } }, 3, 'INVALID_VARIABLES', 'invalid job: variable "A" must have a string or number value (got null)'],
    ['a list variable without a key', { id: 3, variables: [{ value: '1' }] }, 3, 'INVALID_VARIABLES', 'invalid job: a variable needs a non-empty string "key" (got nothing)'],
    ['a list variable without a value', { id: 3, variables: [{ key: 'A' }] }, 3, 'INVALID_VARIABLES', 'invalid job: variable "A" has no "value"'],
    ['a list entry that is not an object', { id: 3, variables: ['A=1'] }, 3, 'INVALID_VARIABLES', 'invalid job: variables[0] must be an object {key, value} (got a string "A=1")'],
    ['a variable named __proto__', JSON.parse('{"id": 3, "variables": {"__proto__": "x"}}') as unknown, 3, 'INVALID_VARIABLES', 'invalid job: variable name "__proto__" is not allowed: it could change object prototypes'],
    ['a webhook of another kind', { object_kind: 'pipeline', id: 3 }, 3, 'INVALID_JOB', 'invalid job: object_kind "pipeline" is not a job; only Job event webhooks (object_kind "build") are accepted'],
  ])('answers %s with a rejection naming the problem', (_what, bad, id, code, reason) => {
    const { admit, explain } = setup();
    const [before, response, after] = admit([job(1), bad, job(2)] as never[]);
    expect(response).toEqual({ id, admission: 'rejected', reason });
    expect(before).toEqual({ id: 1, admission: 'accepted', reason: 'fine' });
    expect(after).toEqual({ id: 2, admission: 'accepted', reason: 'fine' });
    const [explained] = explain([bad] as never[]);
    expect(explained!.error).toBeInstanceOf(JobAdmissionError);
    expect(explained!.error?.code).toBe(code);
    expect(explained!.job).toBeUndefined();
  });

  it('lists every problem of a job in one reason, with the first one\'s code and path', () => {
    const { explain } = setup();
    const result = explain({ tags: [1], variables: 5 } as unknown as JobPayload);
    expect(result.response.reason).toBe(
      'invalid job: the job has no "id"; expected a job id such as 123; "variables" must be an object of names to values or a list of {key, value} (got the number 5); "tags" must be a list of non-empty strings (got the number 1 at index 0)',
    );
    expect(result.error).toMatchObject({ code: 'MISSING_ID', path: '/id' });
  });

  it('points at the offending entry with a JSON pointer', () => {
    const { explain } = setup();
    expect(explain({ id: 1, tags: ['a', 2] } as unknown as JobPayload).error?.path).toBe('/tags/1');
    expect(explain({ id: 1, variables: { 'a/b': [] } } as unknown as JobPayload).error?.path).toBe('/variables/a~1b');
    expect(explain({ id: 1, variables: [{ key: 'A', value: 1 }, { key: 'B', value: {} }] } as unknown as JobPayload).error?.path).toBe('/variables/1/value');
  });

  it('fails a job closed when evaluation itself breaks, answering the others', () => {
    const broken = policy('broken', { mutate: [{ name: 'm', patch: [{ op: 'replace', path: '/tags/5', value: 'x' }] }] });
    const { admit } = createJobAdmission({ chain: [{ level: 'instance', policies: [broken] }] });
    const [bad, good] = admit([job(1, {}, ['a']), job(2, {}, ['a', 'b', 'c', 'd', 'e', 'f'])]);
    expect(bad).toMatchObject({ id: 1, admission: 'rejected', reason: expect.stringContaining('policy "broken" failed: mutate rule "m" was not applied') as unknown });
    expect(good).toEqual({ id: 2, admission: 'accepted', tags: { add: ['x'], remove: ['f'] }, reason: '' });
  });
});

describe('explain', () => {
  it('returns each level\'s input, decision and answer besides the response', () => {
    const { explain } = createJobAdmission({
      chain: [
        { level: 'project', policies: [addTag('zone', 'zone_a')] },
        { level: 'instance', name: 'gitlab.example.com', policies: [because('why', 'seen {{tags | join "+"}} at {{controller.name}}')] },
      ],
    });
    const [result] = explain([job(9, { GITLAB_USER_LOGIN: 'alice' }, ['docker'])]);
    expect(result!.response).toEqual({ id: 9, admission: 'accepted', tags: { add: ['zone_a'], remove: [] }, reason: 'seen docker+zone_a at gitlab.example.com' });
    expect(result!.job).toEqual({ id: 9, variables: { GITLAB_USER_LOGIN: 'alice' }, tags: ['docker'] });
    expect(result!.tags).toEqual(['docker', 'zone_a']);
    expect(result!.levels.map((l) => ({ level: l.level, name: l.name, tags: l.input.tags, user: l.input.user.login, allowed: l.decision.allowed }))).toEqual([
      { level: 'project', name: 'project', tags: ['docker'], user: 'alice', allowed: true },
      { level: 'instance', name: 'gitlab.example.com', tags: ['docker', 'zone_a'], user: 'alice', allowed: true },
    ]);
    expect(result!.levels[0]!.decision.trace[0]).toMatchObject({ policy: 'zone', matched: true });
  });
});

describe('policies of a level', () => {
  it('accept YAML text, documents and a set compiled with loadJobPolicies', () => {
    const yaml = `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: zone}
spec:
  match: {users: [alice]}
  mutate: [{name: add, patch: [{op: add, path: /tags/-, value: zone_a}]}]
`;
    const compiled = loadJobPolicies(yaml);
    for (const policies of [yaml, [addTag('zone', 'zone_a', { users: ['alice'] })], compiled]) {
      const { admit } = createJobAdmission({ chain: [{ level: 'group', policies }] });
      expect(admit(job(1, { GITLAB_USER_LOGIN: 'alice' })).tags).toEqual({ add: ['zone_a'], remove: [] });
      expect(admit(job(2, { GITLAB_USER_LOGIN: 'bob' })).tags).toBeUndefined();
    }
  });

  it('throw POLICY_LOAD naming the level, with every problem and line numbers', () => {
    const text = 'apiVersion: verdict.dev/v1\nkind: Policy\nmetadata: {name: p}\nspec:\n  match: {projets: [a]}\n  parameters: {runners: {accept: a}}\n';
    const error = catchError(() => createJobAdmission({ chain: [{ level: 'project' }, { level: 'group', name: 'acme', policies: text }].slice(1) as never }));
    expect(error).toMatchObject({ code: 'POLICY_LOAD', path: '/chain/0/policies' });
    expect(error.message).toContain('policies of the group level "acme" (chain[0]) failed to load');
    expect(error.problems.map((p) => [p.path, p.line, p.source])).toEqual([
      ['/spec/match/projets', 5, 'acme'],
      ['/spec/parameters/runners/accept', 6, 'acme'],
    ]);
    expect(error.toJSON()).toMatchObject({ code: 'POLICY_LOAD', problems: [{ path: '/spec/match/projets' }, { path: '/spec/parameters/runners/accept' }] });
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
