/**
 * One job of a request, validated and normalised: `id` checked, `tags` a
 * list of unique non-empty strings, `variables` a string map (from an object
 * of strings and numbers or GitLab's `[{key, value}]` list). Job event
 * webhooks (`object_kind: "build"`) are mapped first.
 */
import { isForbiddenKey } from '@verdict/core';
import { describe, JobAdmissionError } from './errors.js';
import { checkId, isObject, type JobId } from './check.js';
import { fromJobEvent, isJobEvent } from './webhook.js';

export type { JobId };

/** A variable value as accepted on the wire; normalised to a string (`98123` → `"98123"`, `true` → `"true"`). */
export type VariableValue = string | number | boolean;

/** GitLab's list form of variables (`GET /projects/:id/variables`); other fields (`masked`, `protected`, …) are ignored. */
export interface VariableEntry {
  key: string;
  value: VariableValue;
  [field: string]: unknown;
}

/** A job as the admission controller design sends it. */
export interface JobPayload {
  id: JobId;
  /** An object of variables, or a `[{key, value}]` list (a later duplicate key wins). Absent means none. */
  variables?: Readonly<Record<string, VariableValue>> | readonly VariableEntry[];
  /** The job's tags. Absent means an untagged job. */
  tags?: readonly string[];
}

/** A validated job: variables normalised to strings, tags deduplicated (first occurrence kept). */
export interface Job {
  id: JobId;
  variables: Record<string, string>;
  tags: string[];
}

const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** Normalises one variable value to a string. */
function variableValue(value: unknown, key: string, path: string): string {
  if (typeof value === 'string') return value;
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') return String(value);
  throw JobAdmissionError.job('INVALID_VARIABLES', `variable "${key}" must have a string or number value (got ${describe(value)})`, path);
}

function variableKey(key: unknown, path: string): string {
  if (typeof key !== 'string' || key === '') {
    throw JobAdmissionError.job('INVALID_VARIABLES', `a variable needs a non-empty string "key" (got ${describe(key)})`, path);
  }
  if (isForbiddenKey(key)) throw JobAdmissionError.job('INVALID_VARIABLES', `variable name "${key}" is not allowed: it could change object prototypes`, path);
  return key;
}

/**
 * Normalises `variables` (an object or a `[{key, value}]` list; absent or
 * null means none) to a string map. Throws `INVALID_VARIABLES` with the
 * pointer of the first bad entry.
 */
export function normaliseVariables(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (value === undefined || value === null) return out;
  if (Array.isArray(value)) {
    value.forEach((entry: unknown, i) => {
      const path = `/variables/${i}`;
      if (!isObject(entry)) {
        throw JobAdmissionError.job('INVALID_VARIABLES', `variables[${i}] must be an object {key, value} (got ${describe(entry)})`, path);
      }
      const key = variableKey(entry['key'], `${path}/key`);
      if (!hasOwn(entry, 'value')) throw JobAdmissionError.job('INVALID_VARIABLES', `variable "${key}" has no "value"`, path);
      out[key] = variableValue(entry['value'], key, `${path}/value`);
    });
    return out;
  }
  if (!isObject(value)) {
    throw JobAdmissionError.job('INVALID_VARIABLES', `"variables" must be an object of names to values or a list of {key, value} (got ${describe(value)})`, '/variables');
  }
  for (const key of Object.keys(value)) {
    const path = `/variables/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    out[variableKey(key, path)] = variableValue(value[key], key, path);
  }
  return out;
}

/** Checks `tags` (absent or null means none) and drops duplicates, keeping the first occurrence. */
export function normaliseTags(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw JobAdmissionError.job('INVALID_TAGS', `"tags" must be a list of strings (got ${describe(value)})`, '/tags');
  const seen = new Set<string>();
  value.forEach((tag: unknown, i) => {
    if (typeof tag !== 'string' || tag.trim() === '') {
      throw JobAdmissionError.job('INVALID_TAGS', `"tags" must be a list of non-empty strings (got ${describe(tag)} at index ${i})`, `/tags/${i}`);
    }
    seen.add(tag);
  });
  return [...seen];
}

/**
 * Validates and normalises one job of a request (a job of the design or a Job
 * event webhook). Throws {@link JobAdmissionError} with a job-relative `path`
 * (of the first problem; the message lists every problem of id, variables and tags).
 */
export function parseJob(value: unknown): Job {
  if (!isObject(value)) {
    throw JobAdmissionError.job('INVALID_JOB', `a job must be an object {id, variables, tags} (got ${describe(value)})`);
  }
  if (isJobEvent(value)) return parseJob(fromJobEvent(value));
  if (hasOwn(value, 'object_kind')) {
    throw JobAdmissionError.job('INVALID_JOB', `object_kind ${JSON.stringify(value['object_kind'])} is not a job; only Job event webhooks (object_kind "build") are accepted`, '/object_kind');
  }
  const errors: JobAdmissionError[] = [];
  const attempt = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof JobAdmissionError)) throw error;
      errors.push(error);
      return undefined;
    }
  };
  const id = attempt(() => checkId(value['id'], 'id'));
  const variables = attempt(() => normaliseVariables(value['variables']));
  const tags = attempt(() => normaliseTags(value['tags']));
  if (errors.length === 1) throw errors[0]!;
  if (errors.length > 1) throw new JobAdmissionError(errors[0]!.code, errors.map((e) => e.message).join('; '), { path: errors[0]!.path });
  return { id: id!, variables: variables!, tags: tags! };
}

/** The id to echo for a job that failed validation: its `id` (or `build_id`) when usable, else `null`. */
export function salvageId(value: unknown): JobId | null {
  if (!isObject(value)) return null;
  for (const key of ['id', 'build_id']) {
    try {
      return checkId(value[key], key);
    } catch {
      // try the next field
    }
  }
  return null;
}
