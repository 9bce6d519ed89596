/**
 * The derived fields of a job input and the predefined CI/CD variables they
 * come from: the whole mapping, in one place. Only variables known before a
 * runner picks the job are used (job-only ones such as CI_RUNNER_ID are not).
 */

/** Field of the job input → the GitLab predefined variable it is read from. */
export const WELL_KNOWN_VARIABLES = {
  'project.id': 'CI_PROJECT_ID',
  'project.path': 'CI_PROJECT_PATH',
  'project.name': 'CI_PROJECT_NAME',
  'project.namespace': 'CI_PROJECT_NAMESPACE',
  'project.rootNamespace': 'CI_PROJECT_ROOT_NAMESPACE',
  'project.visibility': 'CI_PROJECT_VISIBILITY',
  'user.id': 'GITLAB_USER_ID',
  'user.login': 'GITLAB_USER_LOGIN',
  'user.name': 'GITLAB_USER_NAME',
  'user.email': 'GITLAB_USER_EMAIL',
  ref: 'CI_COMMIT_REF_NAME',
  refProtected: 'CI_COMMIT_REF_PROTECTED',
  pipelineSource: 'CI_PIPELINE_SOURCE',
  'job.name': 'CI_JOB_NAME',
  'job.stage': 'CI_JOB_STAGE',
  'job.image': 'CI_JOB_IMAGE',
  environment: 'CI_ENVIRONMENT_NAME',
} as const;

/** Project fields; each is absent when its variable is (and cannot be derived). */
export interface JobProject {
  /** `CI_PROJECT_ID`, e.g. `"245"`. */
  id?: string;
  /** `CI_PROJECT_PATH` (`group/sub/project`); else `CI_PROJECT_NAMESPACE/CI_PROJECT_NAME`. */
  path?: string;
  /** `CI_PROJECT_NAME`; else the last segment of `path`. */
  name?: string;
  /** `CI_PROJECT_NAMESPACE` (a path, `group/sub`); else `path` without its last segment. */
  namespace?: string;
  /** `CI_PROJECT_ROOT_NAMESPACE`; else the first segment of `namespace`. */
  rootNamespace?: string;
  /** `CI_PROJECT_VISIBILITY`: `private`, `internal` or `public`. */
  visibility?: string;
  /** The namespace and its ancestors, outermost first: `group/sub` → `["group", "group/sub"]`; `[]` when unknown. */
  groups: string[];
}

/** The user who started the pipeline (for manual jobs: who started the job). */
export interface JobUser {
  /** `GITLAB_USER_ID`, e.g. `"98123"`. */
  id?: string;
  /** `GITLAB_USER_LOGIN`. */
  login?: string;
  /** `GITLAB_USER_NAME`. */
  name?: string;
  /** `GITLAB_USER_EMAIL`. */
  email?: string;
}

/** Fields of the job itself. */
export interface JobDetails {
  /** `CI_JOB_NAME`. */
  name?: string;
  /** `CI_JOB_STAGE`. */
  stage?: string;
  /** `CI_JOB_IMAGE`. */
  image?: string;
}

/** The fields derived from a job's variables (every field of the job input except id, tags, untag, variables, controller). */
export interface DerivedFields {
  project: JobProject;
  user: JobUser;
  job: JobDetails;
  /** `CI_COMMIT_REF_NAME`; else `CI_COMMIT_TAG`, else `CI_COMMIT_BRANCH`. */
  ref?: string;
  /** `CI_COMMIT_REF_PROTECTED` as a boolean (absent unless `"true"` or `"false"`). */
  refProtected?: boolean;
  /** `CI_PIPELINE_SOURCE`: `push`, `web`, `schedule`, `merge_request_event`, `api`, `trigger`, … */
  pipelineSource?: string;
  /** `CI_ENVIRONMENT_NAME`. */
  environment?: string;
}

function set<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined && value !== '') target[key] = value;
}

/** Derives the job input's fields from normalised variables (see {@link WELL_KNOWN_VARIABLES}). */
export function deriveFields(variables: Readonly<Record<string, string>>): DerivedFields {
  const v = (name: string): string | undefined => (Object.prototype.hasOwnProperty.call(variables, name) && variables[name] !== '' ? variables[name] : undefined);
  const project: JobProject = { groups: [] };
  const name = v('CI_PROJECT_NAME');
  let path = v('CI_PROJECT_PATH');
  let namespace = v('CI_PROJECT_NAMESPACE');
  if (path === undefined && namespace !== undefined && name !== undefined) path = `${namespace}/${name}`;
  if (namespace === undefined && path !== undefined && path.includes('/')) namespace = path.slice(0, path.lastIndexOf('/'));
  set(project, 'id', v('CI_PROJECT_ID'));
  set(project, 'path', path);
  set(project, 'name', name ?? (path === undefined ? undefined : path.slice(path.lastIndexOf('/') + 1)));
  set(project, 'namespace', namespace);
  set(project, 'rootNamespace', v('CI_PROJECT_ROOT_NAMESPACE') ?? namespace?.split('/')[0]);
  set(project, 'visibility', v('CI_PROJECT_VISIBILITY'));
  if (namespace !== undefined) {
    const parts = namespace.split('/').filter(Boolean);
    project.groups = parts.map((_part, i) => parts.slice(0, i + 1).join('/'));
  }

  const user: JobUser = {};
  set(user, 'id', v('GITLAB_USER_ID'));
  set(user, 'login', v('GITLAB_USER_LOGIN'));
  set(user, 'name', v('GITLAB_USER_NAME'));
  set(user, 'email', v('GITLAB_USER_EMAIL'));

  const job: JobDetails = {};
  set(job, 'name', v('CI_JOB_NAME'));
  set(job, 'stage', v('CI_JOB_STAGE'));
  set(job, 'image', v('CI_JOB_IMAGE'));

  const fields: DerivedFields = { project, user, job };
  set(fields, 'ref', v('CI_COMMIT_REF_NAME') ?? v('CI_COMMIT_TAG') ?? v('CI_COMMIT_BRANCH'));
  const protectedRef = v('CI_COMMIT_REF_PROTECTED');
  if (protectedRef === 'true' || protectedRef === 'false') fields.refProtected = protectedRef === 'true';
  set(fields, 'pipelineSource', v('CI_PIPELINE_SOURCE'));
  set(fields, 'environment', v('CI_ENVIRONMENT_NAME'));
  return fields;
}

const OPEN = { type: 'object', additionalProperties: true } as const;

/** `{properties: {a: {}, b: {}}}` for the sub-fields `prefix.a`, `prefix.b` of {@link WELL_KNOWN_VARIABLES}. */
function fieldsUnder(prefix: string, extra: Record<string, object> = {}): object {
  const names = Object.keys(WELL_KNOWN_VARIABLES).filter((k) => k.startsWith(`${prefix}.`)).map((k) => k.slice(prefix.length + 1));
  return { type: 'object', properties: { ...Object.fromEntries(names.map((n) => [n, {}])), ...extra } };
}

/**
 * The shape of the job input (`JobInput`), for core's load-time check of the
 * paths rules, selectors and messages read: `{"var": "job.imag"}` does not
 * load. `variables` is open (any variable name); the derived fields are the
 * ones {@link WELL_KNOWN_VARIABLES} lists.
 */
export const JOB_INPUT_SHAPE = {
  title: 'the CI job input',
  type: 'object',
  properties: {
    id: {},
    tags: { type: 'array', items: {} },
    untag: { type: 'array', items: {} },
    variables: OPEN,
    project: fieldsUnder('project', { groups: { type: 'array', items: {} } }),
    user: fieldsUnder('user'),
    job: fieldsUnder('job'),
    ...Object.fromEntries(Object.keys(WELL_KNOWN_VARIABLES).filter((k) => !k.includes('.')).map((k) => [k, {}])),
    controller: { type: 'object', properties: { level: {}, name: {}, dryRun: {} } },
  },
} as const;
