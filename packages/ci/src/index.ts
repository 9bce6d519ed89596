/**
 * @verdict/ci: CI job admission on the verdict engine, in the wire format of
 * GitLab's runner admission controller design. Build a controller chain
 * with {@link createJobAdmission}, then `admit(jobs)` before jobs are queued.
 * @packageDocumentation
 */
export {
  createJobAdmission,
  type AdmissionRequest, type AdmissionResponse, type ChainLevelOptions, type JobAdmission, type JobAdmissionOptions, type JobExplanation,
} from './admission.js';
export type { ChainResult, LevelExplanation } from './chain.js';
export { JobAdmissionError, type JobAdmissionErrorCode } from './errors.js';
export { WELL_KNOWN_VARIABLES, type DerivedFields, type JobDetails, type JobProject, type JobUser } from './fields.js';
export { jobFor, type ControllerInfo, type JobInput, type Level } from './input.js';
export type { Job, JobId, JobPayload, VariableEntry, VariableValue } from './job.js';
export type { LevelAnswer } from './level.js';
export { loadJobPolicies, type LoadJobPoliciesOptions } from './load.js';
export { ciMatchDialect } from './match.js';
export type { Runner, RunnerParameters, RunnerRule } from './runners.js';
export type { TagChange } from './tags.js';
export { fromJobEvent, type JobEvent } from './webhook.js';
