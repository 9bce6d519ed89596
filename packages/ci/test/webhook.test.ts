import { describe, expect, it } from 'vitest';
import { createJobAdmission, fromJobEvent, jobFor, type JobEvent } from '@verdict/ci';
import { because, deny } from './helpers.js';

/** The Job event example from GitLab's webhook docs (abridged as in the reference). */
function jobEvent(overrides: Record<string, unknown> = {}): JobEvent {
  return {
    object_kind: 'build', ref: 'gitlab-script-trigger', tag: false,
    before_sha: '2293ada6b400935a1378653304eaf6221e0fdb8f', sha: '2293ada6b400935a1378653304eaf6221e0fdb8f',
    build_id: 1977, build_name: 'test', build_stage: 'test', build_status: 'created',
    build_created_at: '2021-02-23T02:41:37.886Z', build_started_at: null, build_finished_at: null,
    build_duration: null, build_queued_duration: 1095.588715,
    build_allow_failure: false, build_failure_reason: 'script_failure', retries_count: 2,
    pipeline_id: 2366, project_id: 380, project_name: 'gitlab-org/gitlab-test',
    user: { id: 3, name: 'User', email: 'user@gitlab.com', avatar_url: 'http://www.gravatar.com/avatar/e32bd13e2add097461cb96824b7a829c?s=80&d=identicon' },
    commit: { id: 2366, name: 'Build pipeline', sha: '2293ada6b400935a1378653304eaf6221e0fdb8f', status: 'created' },
    repository: { name: 'gitlab_test', homepage: 'http://192.168.64.1:3005/gitlab-org/gitlab-test', visibility_level: 20 },
    project: { id: 380, name: 'Gitlab Test', namespace: 'Gitlab Org', path_with_namespace: 'gitlab-org/gitlab-test', default_branch: 'master' },
    runner: { active: true, runner_type: 'project_type', is_shared: false, id: 380987, description: 'shared-runners-manager-6.gitlab.com', tags: ['linux', 'docker'] },
    environment: null,
    ...overrides,
  } as JobEvent;
}

describe('Job event webhook mapping', () => {
  it('maps the documented payload to a job with predefined variables', () => {
    expect(fromJobEvent(jobEvent())).toEqual({
      id: 1977,
      tags: undefined,
      variables: {
        CI_JOB_ID: '1977', CI_JOB_NAME: 'test', CI_JOB_STAGE: 'test',
        CI_COMMIT_REF_NAME: 'gitlab-script-trigger', CI_COMMIT_BRANCH: 'gitlab-script-trigger',
        CI_COMMIT_SHA: '2293ada6b400935a1378653304eaf6221e0fdb8f', CI_COMMIT_BEFORE_SHA: '2293ada6b400935a1378653304eaf6221e0fdb8f',
        CI_PIPELINE_ID: '2366', CI_PROJECT_ID: '380',
        CI_PROJECT_PATH: 'gitlab-org/gitlab-test', CI_PROJECT_NAME: 'gitlab-test', CI_PROJECT_NAMESPACE: 'gitlab-org', CI_PROJECT_ROOT_NAMESPACE: 'gitlab-org',
        CI_DEFAULT_BRANCH: 'master', CI_PROJECT_VISIBILITY: 'public',
        GITLAB_USER_ID: '3', GITLAB_USER_NAME: 'User', GITLAB_USER_EMAIL: 'user@gitlab.com',
      },
    });
  });

  it('takes the namespace path from path_with_namespace, never the display name, and ignores the runner\'s tags', () => {
    const input = jobFor(jobEvent());
    expect(input.project).toMatchObject({ id: '380', path: 'gitlab-org/gitlab-test', namespace: 'gitlab-org', groups: ['gitlab-org'] });
    expect(input.tags).toEqual([]);
    expect(input.user).toEqual({ id: '3', name: 'User', email: 'user@gitlab.com' });
    expect(input.user.login).toBeUndefined();
  });

  it('marks tag pipelines, drops redacted emails, reads project.id and the environment name', () => {
    const event = jobEvent({ tag: true, ref: 'v1.2.0', project_id: undefined, user: { id: 3, email: '[REDACTED]' }, environment: { name: 'production' } });
    const { variables } = fromJobEvent(event);
    expect(variables).toMatchObject({ CI_COMMIT_TAG: 'v1.2.0', CI_PROJECT_ID: '380', CI_ENVIRONMENT_NAME: 'production' });
    expect(variables).not.toHaveProperty('CI_COMMIT_BRANCH');
    expect(variables).not.toHaveProperty('GITLAB_USER_EMAIL');
  });

  it('uses a tags list a platform adds to the payload', () => {
    expect(jobFor(jobEvent({ tags: ['docker', 'linux'] })).tags).toEqual(['docker', 'linux']);
  });

  it('answers a webhook like a job, echoing build_id', () => {
    const { admit } = createJobAdmission({
      chain: [{ level: 'instance', policies: [deny('public-only', 'only public projects may use shared runners', { not: { variables: 'CI_PROJECT_VISIBILITY=public' } }), because('ok', '{{project.path}} on {{ref}}')] }],
    });
    expect(admit([jobEvent(), jobEvent({ build_id: 2, project: { id: 1, path_with_namespace: 'a/b', visibility_level: 0 }, repository: {} })])).toEqual([
      { id: 1977, admission: 'accepted', reason: 'gitlab-org/gitlab-test on gitlab-script-trigger' },
      { id: 2, admission: 'rejected', reason: 'only public projects may use shared runners' },
    ]);
  });

  it.each([
    [{ build_id: undefined }, null, 'MISSING_ID', '/build_id', 'invalid job: the job has no "build_id"; expected a job id such as 123'],
    [{ build_id: -4 }, null, 'INVALID_ID', '/build_id', 'invalid job: "build_id" must be a non-negative integer or a non-empty string (got the number -4)'],
    [{ user: 'root' }, 1977, 'INVALID_JOB', '/user', 'invalid job: Job event field "user" must be an object (got a string "root")'],
    [{ build_name: ['x'] }, 1977, 'INVALID_JOB', '/build_name', 'invalid job: Job event field "build_name" must be a string or number (got a list)'],
    [{ tags: 'docker' }, 1977, 'INVALID_TAGS', '/tags', 'invalid job: "tags" must be a list of strings (got a string "docker")'],
  ])('rejects a webhook with %j, echoing %s', (overrides, id, code, path, reason) => {
    const { explain } = createJobAdmission({ chain: [] });
    const result = explain(jobEvent(overrides));
    expect(result.response).toEqual({ id, admission: 'rejected', reason });
    expect(result.error).toMatchObject({ code, path });
  });
});
