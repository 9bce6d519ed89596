/**
 * CI job inputs: jobs go through `createJobAdmission` (a chain from the
 * suite's `ci.chain`, or one instance level over the suite's policies); each
 * level's decision is re-evaluated with `explain: true` and the levels'
 * traces are joined for the matchers and the report. Also the CI job fixture.
 */
import { resolve } from 'node:path';
import type { Decision, PolicyDocument } from '@verdict/core';
import { createJobAdmission, loadJobPolicies, type JobExplanation, type JobPayload, type Level, type Runner } from '@verdict/ci';
import { SuiteError } from '../errors.js';
import type { AdapterOptions, Evaluator } from '../evaluate.js';
import { readInputFile, readPolicyFiles } from '../files.js';
import { toOutcome } from '../outcome.js';
import type { CiLevelOfTrace } from '../trace-words.js';

/** One level of `ci.chain` in a suite: policy paths relative to the suite. */
interface LevelConfig {
  level: Level;
  name?: string;
  policies: string[];
  dryRun?: boolean;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function runnersOf(value: unknown, baseDir: string): Runner[] | undefined {
  if (value === undefined) return undefined;
  const list = typeof value === 'string' ? readInputFile(resolve(baseDir, value), `ci.runners (${value})`) : value;
  if (!Array.isArray(list)) throw new SuiteError('SUITE_INVALID', 'ci.runners must be a list of runners {id, tags} or a file holding one', { path: '/ci/runners' });
  return list as Runner[];
}

function chainOf(config: Record<string, unknown>, documents: readonly PolicyDocument[], baseDir: string) {
  const chain = config['chain'];
  if (chain === undefined) return [{ level: 'instance' as Level, name: 'instance', policies: loadJobPolicies([...documents]) }];
  if (!Array.isArray(chain)) throw new SuiteError('SUITE_INVALID', 'ci.chain must be a list of levels {level, name?, policies: [files], dryRun?}', { path: '/ci/chain' });
  return (chain as LevelConfig[]).map((entry, i) => {
    if (!isObject(entry) || !Array.isArray(entry.policies)) {
      throw new SuiteError('SUITE_INVALID', `ci.chain[${i}] must be {level, name?, policies: [files], dryRun?}`, { path: `/ci/chain/${i}` });
    }
    const docs = readPolicyFiles(entry.policies.map((p) => resolve(baseDir, p)));
    const name = entry.name ?? entry.level;
    return { level: entry.level, name, ...(entry.dryRun !== undefined ? { dryRun: entry.dryRun } : {}), policies: loadJobPolicies(docs, { source: name }) };
  });
}

/**
 * The levels' decisions (in explain mode) as one decision: traces, violations, warnings and errors in chain order.
 * Each trace says the level that ran it as `ciLevel: {level, name, dryRun}`: a dry-run level's denials were not enforced.
 */
function joined(explanation: JobExplanation, sets: ReadonlyArray<{ name: string; policies: ReturnType<typeof loadJobPolicies> }>): Decision {
  const decision: Decision = { allowed: explanation.response.admission === 'accepted', violations: [], warnings: [], errors: [], patch: [], trace: [], skipped: 0 };
  for (const level of explanation.levels) {
    const set = sets.find((s) => s.name === level.name)?.policies;
    const d = set ? set.evaluate(level.input, { explain: true }) : level.decision;
    decision.violations.push(...d.violations);
    decision.warnings.push(...d.warnings);
    decision.errors.push(...d.errors);
    decision.patch.push(...d.patch);
    const ciLevel: CiLevelOfTrace = { level: level.level, name: level.name, dryRun: level.dryRun };
    decision.trace.push(...d.trace.map((t) => ({ ...t, ciLevel })));
  }
  return decision;
}

/** Evaluates CI jobs with @verdict/ci. */
export function createCiEvaluator(documents: readonly PolicyDocument[], options: AdapterOptions): Evaluator {
  const config = options.ci ?? {};
  const baseDir = options.baseDir ?? process.cwd();
  const chain = chainOf(config, documents, baseDir);
  const runners = runnersOf(config['runners'], baseDir);
  const admission = createJobAdmission({ chain, ...(runners ? { runners } : {}), ...(options.limits ? { limits: options.limits } : {}) });
  return {
    adapter: 'ci',
    async evaluate(input: unknown) {
      const job = Array.isArray(input) && input.length === 1 ? input[0] : input;
      if (Array.isArray(job)) throw new SuiteError('SUITE_INVALID', `one CI job is evaluated at a time (got a list of ${job.length}); give each job its own case or file`);
      const explanation = admission.explain(job as Parameters<typeof admission.explain>[0]) as JobExplanation;
      return toOutcome(explanation, joined(explanation, chain));
    },
  };
}

let nextJobId = 1;

/**
 * A CI job as GitLab's runner admission controller design sends it:
 * `{id, variables, tags}`. Variable values are kept as given (GitLab sends
 * strings and numbers); `id` defaults to a counter starting at 1.
 */
export function ciJobFor<V extends Record<string, string | number | boolean>>(variables: V, tags: readonly string[] = [], options: { id?: number | string } = {}): CiJob<V> {
  return { id: options.id ?? nextJobId++, variables: { ...variables }, tags: [...tags] } as CiJob<V>;
}

/** A job made by {@link ciJobFor}: a `JobPayload` whose `variables` a test reads without a cast (`job.variables.MEMORY`). */
export type CiJob<V extends Record<string, string | number | boolean> = Record<string, string | number | boolean>> = JobPayload & { variables: V; tags: string[] };
