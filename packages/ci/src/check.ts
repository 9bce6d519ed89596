/** Small value checks shared by the job and webhook readers. */
import { describe, JobAdmissionError } from './errors.js';

/** A job id as the platform sends it: a non-negative integer or a non-empty string. Echoed unchanged in the response. */
export type JobId = number | string;

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Checks a job id; `where` names the field in messages (`id` or `build_id`). */
export function checkId(value: unknown, where: string): JobId {
  if (value === undefined || value === null) {
    throw JobAdmissionError.job('MISSING_ID', `the job has no "${where}"; expected a job id such as 123`, `/${where}`);
  }
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && value.trim() !== '') return value;
  throw JobAdmissionError.job('INVALID_ID', `"${where}" must be a non-negative integer or a non-empty string (got ${describe(value)})`, `/${where}`);
}

