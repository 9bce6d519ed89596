/**
 * `createJobAdmission`: compile a controller chain once, then answer
 * admission requests (one job, a list, or JSON text) in GitLab's design's
 * response shape. One bad job never spoils the answers for the others.
 */
import { PolicyLoadError, type EvaluationLimits, type PolicySource } from '@verdict/core';
import { describe, JobAdmissionError } from './errors.js';
import { isObject } from './check.js';
import { runChain, type ChainResult, type LevelExplanation } from './chain.js';
import type { Level } from './input.js';
import { parseJob, salvageId, type Job, type JobId, type JobPayload } from './job.js';
import type { CompiledLevel } from './level.js';
import { loadJobPolicies } from './load.js';
import { checkInventory, type InventoryRunner, type Runner } from './runners.js';
import type { TagChange } from './tags.js';
import type { JobEvent } from './webhook.js';

/** One controller of the chain. */
export interface ChainLevelOptions {
  level: Level;
  /** Shown in dry-run reasons and explanations (default: the level, e.g. `group`). */
  name?: string;
  /** YAML/JSON text, policy documents, or a set compiled with `loadJobPolicies`. */
  policies: PolicySource;
  /** The file name of `policies` when they are text, shown in load problems (`group.yaml:7:9`); default: the level's name. */
  source?: string;
  /** Evaluate and report (in `reason`, prefixed `dry run (name): would …`) but never reject, retag or filter runners. Default false. */
  dryRun?: boolean;
}


/** `a` or `an`, for a level name (`an instance level`). */
const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');
/** Options of {@link createJobAdmission}: the controller chain, the runner inventory and evaluation bounds. */
export interface JobAdmissionOptions {
  /** The controllers in order: project, then groups nearest first, then instance; any subset (none admits everything). */
  chain: readonly ChainLevelOptions[];
  /**
   * The runner inventory (or a function returning it, called once per `admit`),
   * against which `runners` parameters are resolved. Without one, only runner
   * ids can be accepted or rejected.
   */
  runners?: readonly Runner[] | (() => readonly Runner[]);
  /**
   * Bounds of one evaluation at every level whose policies are text or
   * documents: core's `costBudget` (a job that exceeds it is rejected),
   * `maxViolations` (reasons listed, then "and N more") and `maxMessageLength`.
   */
  limits?: EvaluationLimits;
}

/** One job's answer, exactly in GitLab's design's shape (`tags` and `runners` only when not empty). */
export interface AdmissionResponse {
  /** The job's id as sent; `null` when the job had no usable id. */
  id: JobId | null;
  admission: 'accepted' | 'rejected';
  tags?: TagChange;
  runners?: { accepted_ids: string[]; rejected_ids: string[] };
  /** Reasons of every level in chain order, joined with `"; "` (`""` when none gave one). */
  reason: string;
}

/** The response plus how it came about. */
export interface JobExplanation {
  response: AdmissionResponse;
  /** The validated job (absent when the job was invalid). */
  job?: Job;
  /** The job's problem (invalid input) or the unusable policy outcome that rejected it. */
  error?: JobAdmissionError;
  /** The tags the job ends with. */
  tags: string[];
  /** Each level that ran, in order, with its input, decision and answer. */
  levels: LevelExplanation[];
}

/** A request: one job, a Job event webhook, a list of them, or their JSON text. */
export type AdmissionRequest = JobPayload | JobEvent | ReadonlyArray<JobPayload | JobEvent> | string;

/** A job admission controller made by {@link createJobAdmission}: `admit` answers jobs as GitLab's runner admission expects. */
export interface JobAdmission {
  /**
   * Answers a request: a list gets a list (same order), one job gets one
   * response. Text is parsed as JSON first. Throws {@link JobAdmissionError}
   * only for text that is not JSON (`INVALID_JSON`), a value that is neither a
   * job nor a list (`INVALID_PAYLOAD`) or an invalid runner inventory
   * function result (`INVALID_RUNNERS`); invalid jobs are answered `rejected`.
   */
  admit(request: ReadonlyArray<JobPayload | JobEvent>): AdmissionResponse[];
  admit(request: JobPayload | JobEvent): AdmissionResponse;
  admit(request: AdmissionRequest): AdmissionResponse | AdmissionResponse[];
  /** Like `admit`, with each level's input, decision and answer. */
  explain(request: ReadonlyArray<JobPayload | JobEvent>): JobExplanation[];
  explain(request: JobPayload | JobEvent): JobExplanation;
  explain(request: AdmissionRequest): JobExplanation | JobExplanation[];
}

const RANK: Readonly<Record<Level, number>> = { project: 0, group: 1, instance: 2 };

function compileChain(chain: unknown, limits: EvaluationLimits | undefined): CompiledLevel[] {
  if (!Array.isArray(chain)) throw new JobAdmissionError('INVALID_CHAIN', `"chain" must be a list of levels {level, policies} (got ${describe(chain)})`, { path: '/chain' });
  let previous: Level | undefined;
  return chain.map((entry: unknown, i): CompiledLevel => {
    const at = `/chain/${i}`;
    if (!isObject(entry)) throw new JobAdmissionError('INVALID_CHAIN', `chain[${i}] must be an object {level, name?, policies, source?, dryRun?} (got ${describe(entry)})`, { path: at });
    const level = entry['level'];
    if (level !== 'project' && level !== 'group' && level !== 'instance') {
      throw new JobAdmissionError('INVALID_CHAIN', `chain[${i}].level must be "project", "group" or "instance" (got ${describe(level)})`, { path: `${at}/level` });
    }
    if (previous && (RANK[level] < RANK[previous] || (level !== 'group' && level === previous))) {
      throw new JobAdmissionError('INVALID_CHAIN', `chain[${i}] is ${article(level)} ${level} level after ${article(previous)} ${previous} level; the order is one project, then groups nearest first, then one instance`, { path: `${at}/level` });
    }
    previous = level;
    const name = entry['name'] ?? level;
    if (typeof name !== 'string' || name === '') throw new JobAdmissionError('INVALID_CHAIN', `chain[${i}].name must be a non-empty string (got ${describe(name)})`, { path: `${at}/name` });
    const dryRun = entry['dryRun'] ?? false;
    if (typeof dryRun !== 'boolean') throw new JobAdmissionError('INVALID_CHAIN', `chain[${i}].dryRun must be true or false (got ${describe(dryRun)})`, { path: `${at}/dryRun` });
    const source = entry['source'] ?? name;
    if (typeof source !== 'string' || source === '') throw new JobAdmissionError('INVALID_CHAIN', `chain[${i}].source must be a non-empty string, the file name of its policies (got ${describe(source)})`, { path: `${at}/source` });
    const policies = entry['policies'];
    if (typeof policies !== 'string' && !Array.isArray(policies) && !(isObject(policies) && typeof (policies as { evaluate?: unknown }).evaluate === 'function')) {
      throw new JobAdmissionError('INVALID_CHAIN', `chain[${i}].policies must be YAML/JSON text, a list of policy documents or a compiled policy set (got ${describe(policies)})`, { path: `${at}/policies` });
    }
    try {
      const set = loadJobPolicies(policies as PolicySource, { source, ...(limits ? { limits } : {}) });
      if (set.mutationTarget !== '') {
        throw new JobAdmissionError('INVALID_CHAIN', `chain[${i}].policies were compiled with mutationTarget "${set.mutationTarget}"; CI policies patch the job input root: compile them with loadJobPolicies`, { path: `${at}/policies` });
      }
      return { controller: { level, name, dryRun }, policies: set };
    } catch (error) {
      if (!(error instanceof PolicyLoadError)) throw error;
      throw new JobAdmissionError('POLICY_LOAD', `policies of the ${level} level "${name}" (chain[${i}]) failed to load: ${error.message}`, { path: `${at}/policies`, cause: error, problems: error.problems });
    }
  });
}

function parseText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new JobAdmissionError('INVALID_JSON', `the request is not JSON (${(error as Error).message}); expected a job {id, variables, tags} or a list of jobs`, { cause: error });
  }
}

function toResponse(id: JobId | null, result: Pick<ChainResult, 'admission' | 'reason' | 'tags' | 'runners'>): AdmissionResponse {
  const accepted = result.admission === 'accepted';
  const { tags, runners } = result;
  return {
    id,
    admission: result.admission,
    ...(accepted && (tags.add.length || tags.remove.length) ? { tags: { add: tags.add, remove: tags.remove } } : {}),
    ...(accepted && (runners.accepted.length || runners.rejected.length) ? { runners: { accepted_ids: runners.accepted, rejected_ids: runners.rejected } } : {}),
    reason: result.reason,
  };
}

/**
 * Compiles a controller chain and returns `{admit, explain}`. Throws
 * {@link JobAdmissionError}: `INVALID_CHAIN` (levels out of order, bad
 * fields), `POLICY_LOAD` (with every problem) or `INVALID_RUNNERS`.
 */
export function createJobAdmission(options: JobAdmissionOptions): JobAdmission {
  if (!isObject(options)) throw new JobAdmissionError('INVALID_CHAIN', `createJobAdmission takes {chain, runners?} (got ${describe(options)})`);
  const levels = compileChain(options.chain, options.limits);
  const source = options.runners;
  const fixed = typeof source === 'function' || source === undefined ? undefined : checkInventory(source);
  const inventory = (): InventoryRunner[] | undefined => (typeof source === 'function' ? checkInventory(source(), '/runners()') : fixed);

  const one = (value: unknown, runners: InventoryRunner[] | undefined): JobExplanation => {
    let job: Job;
    try {
      job = parseJob(value);
    } catch (error) {
      const e = error instanceof JobAdmissionError ? error : new JobAdmissionError('INVALID_JOB', (error as Error).message, { cause: error });
      return { response: { id: salvageId(value), admission: 'rejected', reason: `invalid job: ${e.message}` }, error: e, tags: [], levels: [] };
    }
    let result: ChainResult;
    try {
      result = runChain(levels, job, runners);
    } catch (error) {
      const e = new JobAdmissionError('EVALUATION', `internal error while admitting job ${job.id}: ${(error as Error).message}`, { cause: error });
      return { response: { id: job.id, admission: 'rejected', reason: e.message }, job, error: e, tags: [...job.tags], levels: [] };
    }
    const explanation: JobExplanation = { response: toResponse(job.id, result), job, tags: result.finalTags, levels: result.levels };
    if (result.error) explanation.error = result.error;
    return explanation;
  };

  function explain(request: AdmissionRequest): JobExplanation | JobExplanation[] {
    const value = typeof request === 'string' ? parseText(request) : (request as unknown);
    if (!Array.isArray(value) && !isObject(value)) {
      throw new JobAdmissionError('INVALID_PAYLOAD', `the request must be a job {id, variables, tags}, a Job event webhook or a list of them (got ${describe(value)})`);
    }
    const runners = inventory();
    return Array.isArray(value) ? value.map((job: unknown) => one(job, runners)) : one(value, runners);
  }

  function admit(request: AdmissionRequest): AdmissionResponse | AdmissionResponse[] {
    const result = explain(request);
    return Array.isArray(result) ? result.map((r) => r.response) : result.response;
  }

  return { admit, explain } as JobAdmission;
}
