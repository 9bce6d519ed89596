/**
 * Loading CI policies: core's loader with the CI match dialect and mutations
 * addressed from the job input's root, plus load-time checks of the reserved
 * parameters `runners` and `reason` in every document that carries them.
 */
import { checkInputReads, compileTemplate, loadPolicySet, type EvaluationLimits, type MatchDialect, type PolicySet, type PolicySource } from '@verdict/core';
import type { JobAdmissionError } from './errors.js';
import { JOB_INPUT_SHAPE } from './fields.js';
import { ciMatchDialect } from './match.js';
import { readRunnerRule } from './runners.js';

/** Options of {@link loadJobPolicies}. */
export interface LoadJobPoliciesOptions {
  /** A file name or label shown in load problems (e.g. `group acme`). */
  source?: string;
  /** Further match dialects, besides the CI one. */
  dialects?: readonly MatchDialect[];
  /**
   * Bounds of one evaluation (core's `costBudget`, `maxViolations`,
   * `maxMessageLength`); not allowed with a compiled set. A job whose
   * evaluation exceeds the cost budget is rejected.
   */
  limits?: EvaluationLimits;
}

/** Issues with the reserved parameters `runners` and `reason` in one parameter set (paths relative to it). */
function reservedParameterIssues(parameters: Readonly<Record<string, unknown>>): Array<{ path: string; message: string }> {
  const issues: Array<{ path: string; message: string }> = [];
  try {
    readRunnerRule(parameters, 'policy');
  } catch (error) {
    const e = error as JobAdmissionError;
    issues.push({ path: e.path.replace(/^\/parameters/, ''), message: e.message.replace(/^policy: /, '') });
  }
  const reason = parameters['reason'];
  if (reason !== undefined && reason !== null && typeof reason !== 'string') {
    issues.push({ path: '/reason', message: 'parameter "reason" must be a string (a message template such as "user {{user.login}} is in zone A")' });
  } else if (typeof reason === 'string') {
    try {
      const reads = compileTemplate(reason).paths.filter((path) => path[0] !== 'parameters').map((path) => ({ path, at: '/reason' }));
      for (const issue of checkInputReads(JOB_INPUT_SHAPE, reads)) issues.push({ path: '/reason', message: `parameter "reason" ${issue.message}` });
    } catch (error) {
      issues.push({ path: '/reason', message: `parameter "reason" is not a valid message template: ${(error as Error).message}` });
    }
  }
  return issues;
}

/**
 * Compiles CI policies (YAML/JSON text, documents, or a compiled set, which is
 * returned as is): the `ci` match dialect is registered and mutations address
 * the job input root (`/tags/-`). Throws core's `PolicyLoadError` listing
 * every problem, including malformed `runners` or `reason` parameters and
 * reads of job fields that do not exist (`UNKNOWN_INPUT_PATH`, e.g. `job.imag`).
 */
export function loadJobPolicies(source: PolicySource, options: LoadJobPoliciesOptions = {}): PolicySet {
  return loadPolicySet(source, {
    ...options.limits,
    dialects: [ciMatchDialect, ...(options.dialects ?? [])],
    mutationTarget: '',
    inputShape: JOB_INPUT_SHAPE,
    checkParameters: reservedParameterIssues,
    ...(options.source ? { source: options.source } : {}),
  });
}
