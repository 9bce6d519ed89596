/**
 * GitLab's "Job events" webhook (`X-Gitlab-Event: Job Hook`, `object_kind:
 * "build"`) mapped to a job: `build_id` is the id and the payload's facts
 * become the predefined variables they correspond to. The event carries no
 * job tags (`runner.tags` are the assigned runner's), no username and no
 * pipeline source, so those stay unset unless the payload adds a `tags` list.
 */
import { describe, JobAdmissionError } from './errors.js';
import { checkId, isObject } from './check.js';

/** The fields of a Job event webhook payload that are read; everything else is ignored. */
export interface JobEvent {
  object_kind: 'build';
  build_id: number | string;
  build_name?: string;
  build_stage?: string;
  ref?: string;
  /** Whether `ref` is a tag. */
  tag?: boolean;
  sha?: string;
  before_sha?: string;
  pipeline_id?: number;
  project_id?: number;
  project?: { id?: number; path_with_namespace?: string; default_branch?: string; visibility_level?: number; [field: string]: unknown };
  repository?: { visibility_level?: number; [field: string]: unknown };
  user?: { id?: number; name?: string; email?: string; [field: string]: unknown };
  environment?: { name?: string; [field: string]: unknown } | null;
  /** Not part of GitLab's payload: a platform may add the job's tags here. */
  tags?: readonly string[];
  [field: string]: unknown;
}

const VISIBILITY: Readonly<Record<string, string>> = { 0: 'private', 10: 'internal', 20: 'public' };

/** Whether a value is a Job event webhook payload. */
export function isJobEvent(value: unknown): value is JobEvent {
  return isObject(value) && value['object_kind'] === 'build';
}

/** Reads a string or number at `path` (`undefined` when absent or null); anything else is an error. */
function scalar(root: Record<string, unknown>, path: readonly string[]): string | undefined {
  let cur: unknown = root;
  for (let i = 0; i < path.length; i++) {
    if (cur === undefined || cur === null) return undefined;
    if (!isObject(cur)) {
      throw JobAdmissionError.job('INVALID_JOB', `Job event field "${path.slice(0, i).join('.')}" must be an object (got ${describe(cur)})`, `/${path.slice(0, i).join('/')}`);
    }
    cur = Object.prototype.hasOwnProperty.call(cur, path[i]!) ? cur[path[i]!] : undefined;
  }
  if (cur === undefined || cur === null || cur === '') return undefined;
  if (typeof cur === 'string' || (typeof cur === 'number' && Number.isFinite(cur)) || typeof cur === 'boolean') return String(cur);
  throw JobAdmissionError.job('INVALID_JOB', `Job event field "${path.join('.')}" must be a string or number (got ${describe(cur)})`, `/${path.join('/')}`);
}

/**
 * Maps a Job event payload to a design-style job `{id, variables, tags}`:
 * `build_id` → id and `CI_JOB_ID`; `build_name` → `CI_JOB_NAME`; `build_stage`
 * → `CI_JOB_STAGE`; `ref` → `CI_COMMIT_REF_NAME` (and `CI_COMMIT_TAG` or
 * `CI_COMMIT_BRANCH` by `tag`); `sha`/`before_sha` → `CI_COMMIT_SHA`/`CI_COMMIT_BEFORE_SHA`;
 * `pipeline_id` → `CI_PIPELINE_ID`; `project_id` (else `project.id`) → `CI_PROJECT_ID`;
 * `project.path_with_namespace` → `CI_PROJECT_PATH`, and its last segment, the rest and the
 * first segment → `CI_PROJECT_NAME`, `CI_PROJECT_NAMESPACE`, `CI_PROJECT_ROOT_NAMESPACE`
 * (`project.namespace` is a display name and is not used); `project.default_branch` →
 * `CI_DEFAULT_BRANCH`; `visibility_level` 0/10/20 → `CI_PROJECT_VISIBILITY`; `user.id`,
 * `user.name`, `user.email` (unless `[REDACTED]`) → `GITLAB_USER_ID`, `GITLAB_USER_NAME`,
 * `GITLAB_USER_EMAIL`; `environment.name` → `CI_ENVIRONMENT_NAME`. Throws
 * {@link JobAdmissionError} for a missing `build_id` or a field of the wrong type.
 */
export function fromJobEvent(event: Record<string, unknown>): { id: number | string; variables: Record<string, string>; tags: unknown } {
  const id = checkId(event['build_id'], 'build_id');
  const vars: Record<string, string> = {};
  const put = (name: string, value: string | undefined) => {
    if (value !== undefined) vars[name] = value;
  };
  put('CI_JOB_ID', String(id));
  put('CI_JOB_NAME', scalar(event, ['build_name']));
  put('CI_JOB_STAGE', scalar(event, ['build_stage']));
  const ref = scalar(event, ['ref']);
  put('CI_COMMIT_REF_NAME', ref);
  if (ref !== undefined && typeof event['tag'] === 'boolean') put(event['tag'] ? 'CI_COMMIT_TAG' : 'CI_COMMIT_BRANCH', ref);
  put('CI_COMMIT_SHA', scalar(event, ['sha']));
  put('CI_COMMIT_BEFORE_SHA', scalar(event, ['before_sha']));
  put('CI_PIPELINE_ID', scalar(event, ['pipeline_id']));
  put('CI_PROJECT_ID', scalar(event, ['project_id']) ?? scalar(event, ['project', 'id']));
  const path = scalar(event, ['project', 'path_with_namespace']);
  if (path !== undefined) {
    put('CI_PROJECT_PATH', path);
    const cut = path.lastIndexOf('/');
    put('CI_PROJECT_NAME', path.slice(cut + 1));
    if (cut > 0) {
      put('CI_PROJECT_NAMESPACE', path.slice(0, cut));
      put('CI_PROJECT_ROOT_NAMESPACE', path.slice(0, path.indexOf('/')));
    }
  }
  put('CI_DEFAULT_BRANCH', scalar(event, ['project', 'default_branch']));
  const level = scalar(event, ['project', 'visibility_level']) ?? scalar(event, ['repository', 'visibility_level']);
  put('CI_PROJECT_VISIBILITY', level === undefined ? undefined : VISIBILITY[level]);
  put('GITLAB_USER_ID', scalar(event, ['user', 'id']));
  put('GITLAB_USER_NAME', scalar(event, ['user', 'name']));
  const email = scalar(event, ['user', 'email']);
  put('GITLAB_USER_EMAIL', email === '[REDACTED]' ? undefined : email);
  put('CI_ENVIRONMENT_NAME', scalar(event, ['environment', 'name']));
  return { id, variables: vars, tags: event['tags'] };
}
