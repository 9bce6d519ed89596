/**
 * The job input document: what selectors, rules, message templates and
 * patches of CI policies see. Built once per job and level.
 */
import { deriveFields, type DerivedFields } from './fields.js';
import { parseJob, type Job, type JobId, type JobPayload } from './job.js';
import type { JobEvent } from './webhook.js';

/** A controller level: project → groups (nearest first) → instance. */
export type Level = 'project' | 'group' | 'instance';

/** Which controller is evaluating the job (the same policies can serve several levels). */
export interface ControllerInfo {
  level: Level;
  /** The level's `name` from the chain (default: the level, e.g. `group`). */
  name: string;
  /** True for a `dryRun` level. */
  dryRun: boolean;
}

/**
 * The document policies see. Mutations address it from the root: add a tag
 * with `{op: add, path: /tags/-, value: zone_a}`, remove one by name with
 * `{op: add, path: /untag/-, value: eu-west}` (or by index with `remove /tags/N`).
 */
export interface JobInput extends DerivedFields {
  /** The job id as sent (number or string). */
  id: JobId;
  /** The job's tags as this level sees them (after earlier levels' changes), unique, in order. */
  tags: string[];
  /** Always `[]` on input: names a policy appends here are removed from `tags`. */
  untag: string[];
  /** Every variable, values as strings; label selectors work on it (`labels: {path: variables, …}`). */
  variables: Record<string, string>;
  controller: ControllerInfo;
}

const DEFAULT_CONTROLLER: ControllerInfo = { level: 'instance', name: 'instance', dryRun: false };

/** Builds the job input of a validated job for one controller level. */
export function toJobInput(job: Job, controller: ControllerInfo = DEFAULT_CONTROLLER): JobInput {
  return {
    id: job.id,
    tags: [...job.tags],
    untag: [],
    variables: { ...job.variables },
    ...deriveFields(job.variables),
    controller: { ...controller },
  };
}

/**
 * Builds the job input for a job given as on the wire (`{id, variables, tags}`,
 * variables as an object or `[{key, value}]` list, or a Job event webhook):
 * handy for evaluating CI policies directly and in tests. `controller`
 * defaults to `{level: 'instance', name: 'instance', dryRun: false}`. Throws
 * {@link JobAdmissionError} for an invalid job.
 */
export function jobFor(job: JobPayload | JobEvent, controller: Partial<ControllerInfo> = {}): JobInput {
  const level = controller.level ?? DEFAULT_CONTROLLER.level;
  return toJobInput(parseJob(job), { level, name: controller.name ?? level, dryRun: controller.dryRun ?? false });
}
