import { VerdictError, type Problem } from '@verdict/core';

/**
 * Codes of {@link JobAdmissionError}. Configuration codes are thrown by
 * `createJobAdmission`; payload codes by `admit` (for text that is not JSON
 * or not a job); job codes never throw: the job is answered `rejected` with
 * the message as `reason`, and `explain` returns the error.
 */
export type JobAdmissionErrorCode =
  /** Configuration: `chain` is not a list of levels in project → groups → instance order. */
  | 'INVALID_CHAIN'
  /** Configuration: a level's policies failed to load; `problems` lists every reason. */
  | 'POLICY_LOAD'
  /** Configuration: the runner inventory is not a list of `{id, tags?}` with unique ids. */
  | 'INVALID_RUNNERS'
  /** Payload: text given to `admit` is not JSON. */
  | 'INVALID_JSON'
  /** Payload: the value is neither a job, a Job event webhook, nor a list of them. */
  | 'INVALID_PAYLOAD'
  /** Job: the entry is not an object. */
  | 'INVALID_JOB'
  /** Job: no `id` (or `build_id` in a webhook payload). */
  | 'MISSING_ID'
  /** Job: `id` is not a non-negative integer or a non-empty string. */
  | 'INVALID_ID'
  /** Job: `tags` is not a list of non-empty strings. */
  | 'INVALID_TAGS'
  /** Job: `variables` is not a string map or a `[{key, value}]` list of strings and numbers. */
  | 'INVALID_VARIABLES'
  /** Policy outcome: a level's mutation changed something other than `/tags` and `/untag`, or left invalid tags. */
  | 'INVALID_MUTATION'
  /** Policy outcome: a policy's `runners` parameter is malformed or needs a runner inventory that was not given. */
  | 'INVALID_RUNNER_PARAMETERS'
  /** Policy outcome: the core engine reported an error (a failing rule, selector or parameters). */
  | 'EVALUATION';

/** The one error class of `@verdict/ci`. `path` is a JSON pointer into the payload, the job or the options. */
export class JobAdmissionError extends VerdictError<JobAdmissionErrorCode> {
  override readonly name = 'JobAdmissionError';
  /** For `POLICY_LOAD`: every problem core reported. */
  readonly problems: readonly Problem[];

  constructor(code: JobAdmissionErrorCode, message: string, options: { path?: string; cause?: unknown; problems?: readonly Problem[] } = {}) {
    super(code, message, options);
    this.problems = options.problems ?? [];
  }

  override toJSON(): { code: JobAdmissionErrorCode; message: string; path: string; problems?: Problem[] } {
    return this.problems.length ? { ...super.toJSON(), problems: [...this.problems] } : super.toJSON();
  }

  /** A job-level input problem at `path` (relative to the job). */
  static job(code: JobAdmissionErrorCode, message: string, path = ''): JobAdmissionError {
    return jobError(code, message, path);
  }
}

/** Outside the class body, so the bundle keeps the class's name (see core's `VerdictError` factories). */
function jobError(code: JobAdmissionErrorCode, message: string, path: string): JobAdmissionError {
  return new JobAdmissionError(code, message, { path });
}

/** A short description of a JSON value's type for messages: `a string "x"`, `a list`, `null`. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `a string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'boolean') return `${value}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
