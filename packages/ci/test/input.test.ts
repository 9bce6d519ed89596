import { describe, expect, it } from 'vitest';
import { JobAdmissionError, jobFor, WELL_KNOWN_VARIABLES } from '@verdict/ci';
import { normaliseVariables, parseJob } from '../src/job.js';

describe('variable normalisation', () => {
  it('turns numbers and booleans into strings in the object form', () => {
    expect(normaliseVariables({ CI_PROJECT_ID: 123, CI_PROJECT_NAME: 'something', GITLAB_USER_ID: 98123, FLAG: true, RATIO: 0.5 })).toEqual({
      CI_PROJECT_ID: '123', CI_PROJECT_NAME: 'something', GITLAB_USER_ID: '98123', FLAG: 'true', RATIO: '0.5',
    });
  });

  it('reads GitLab\'s [{key, value}] list, ignoring other fields, a later duplicate winning', () => {
    expect(normaliseVariables([
      { key: 'CI_PROJECT_ID', value: 245, masked: false, variable_type: 'env_var' },
      { key: 'DEPLOY', value: 'no' },
      { key: 'DEPLOY', value: 'yes', protected: true },
    ])).toEqual({ CI_PROJECT_ID: '245', DEPLOY: 'yes' });
  });

  it('treats absent or null variables as none', () => {
    expect(normaliseVariables(undefined)).toEqual({});
    expect(normaliseVariables(null)).toEqual({});
    expect(normaliseVariables([])).toEqual({});
  });

  it('throws INVALID_VARIABLES with a pointer to the bad entry', () => {
    expect(() => normaliseVariables({ A: [] })).toThrow(JobAdmissionError);
    expect(() => normaliseVariables({ A: [] })).toThrow('variable "A" must have a string or number value (got a list)');
    expect(() => normaliseVariables([{ key: '', value: 'x' }])).toThrow('a variable needs a non-empty string "key" (got a string "")');
    expect(() => normaliseVariables(42)).toThrow('"variables" must be an object of names to values or a list of {key, value} (got the number 42)');
  });
});

describe('parseJob', () => {
  it('normalises a proposal job and keeps its id as sent', () => {
    expect(parseJob({ id: 123, variables: { CI_PROJECT_ID: 123 }, tags: ['docker', 'windows', 'docker'] })).toEqual({
      id: 123, variables: { CI_PROJECT_ID: '123' }, tags: ['docker', 'windows'],
    });
    expect(parseJob({ id: 'job-7' })).toEqual({ id: 'job-7', variables: {}, tags: [] });
  });

  it('throws a JobAdmissionError with a code and a job-relative path', () => {
    expect(() => parseJob({ id: 1, tags: [null] })).toThrow(expect.objectContaining({ code: 'INVALID_TAGS', path: '/tags/0' }) as Error);
  });
});

describe('the job input document (jobFor)', () => {
  it('derives project, user, ref and pipeline fields from the well-known variables', () => {
    const input = jobFor({
      id: 245,
      tags: ['linux'],
      variables: [
        { key: 'CI_PROJECT_ID', value: 245 },
        { key: 'CI_PROJECT_PATH', value: 'acme/platform/foobar' },
        { key: 'CI_PROJECT_VISIBILITY', value: 'internal' },
        { key: 'GITLAB_USER_ID', value: 98123 },
        { key: 'GITLAB_USER_LOGIN', value: 'alice' },
        { key: 'GITLAB_USER_NAME', value: 'Alice' },
        { key: 'GITLAB_USER_EMAIL', value: 'alice@example.com' },
        { key: 'CI_COMMIT_REF_NAME', value: 'main' },
        { key: 'CI_COMMIT_REF_PROTECTED', value: 'true' },
        { key: 'CI_PIPELINE_SOURCE', value: 'push' },
        { key: 'CI_JOB_NAME', value: 'build' },
        { key: 'CI_JOB_STAGE', value: 'test' },
        { key: 'CI_JOB_IMAGE', value: 'ruby:3.3' },
        { key: 'CI_ENVIRONMENT_NAME', value: 'production' },
      ],
    });
    expect(input).toEqual({
      id: 245,
      tags: ['linux'],
      untag: [],
      variables: expect.objectContaining({ CI_PROJECT_ID: '245', GITLAB_USER_ID: '98123' }) as unknown,
      project: { id: '245', path: 'acme/platform/foobar', name: 'foobar', namespace: 'acme/platform', rootNamespace: 'acme', visibility: 'internal', groups: ['acme', 'acme/platform'] },
      user: { id: '98123', login: 'alice', name: 'Alice', email: 'alice@example.com' },
      job: { name: 'build', stage: 'test', image: 'ruby:3.3' },
      ref: 'main',
      refProtected: true,
      pipelineSource: 'push',
      environment: 'production',
      controller: { level: 'instance', name: 'instance', dryRun: false },
    });
  });

  it('leaves fields out when their variables are missing, and derives the path from namespace and name', () => {
    expect(jobFor({ id: 1, variables: { CI_PROJECT_NAMESPACE: 'acme', CI_PROJECT_NAME: 'web', CI_COMMIT_TAG: 'v1.0', CI_COMMIT_REF_PROTECTED: 'maybe' } })).toMatchObject({
      project: { path: 'acme/web', namespace: 'acme', name: 'web', rootNamespace: 'acme', groups: ['acme'] },
      user: {},
      ref: 'v1.0',
    });
    const bare = jobFor({ id: 1 });
    expect(bare).toEqual({ id: 1, tags: [], untag: [], variables: {}, project: { groups: [] }, user: {}, job: {}, controller: { level: 'instance', name: 'instance', dryRun: false } });
    expect('refProtected' in bare).toBe(false);
  });

  it('takes the branch when there is no ref name and names the controller it is built for', () => {
    expect(jobFor({ id: 1, variables: { CI_COMMIT_BRANCH: 'feature/x' } }, { level: 'group', name: 'acme' })).toMatchObject({
      ref: 'feature/x', controller: { level: 'group', name: 'acme', dryRun: false },
    });
  });

  it('maps each derived field from exactly one predefined variable', () => {
    expect(WELL_KNOWN_VARIABLES).toMatchObject({ 'project.id': 'CI_PROJECT_ID', 'user.login': 'GITLAB_USER_LOGIN', ref: 'CI_COMMIT_REF_NAME', pipelineSource: 'CI_PIPELINE_SOURCE' });
    const values = Object.values(WELL_KNOWN_VARIABLES);
    expect(new Set(values).size).toBe(values.length);
  });

  it('throws for an invalid job', () => {
    expect(() => jobFor({ tags: [] } as never)).toThrow(expect.objectContaining({ code: 'MISSING_ID' }) as Error);
  });
});
