/**
 * A controller chain: project → groups (nearest first) → instance. Each level
 * sees the job as the previous levels left it; reasons are concatenated in
 * chain order; a rejection (or no runner left) ends the chain; a dry-run
 * level reports what it would have done and changes nothing.
 */
import { JobAdmissionError } from './errors.js';
import type { Level } from './input.js';
import type { Job } from './job.js';
import { join, runLevel, type CompiledLevel, type LevelAnswer } from './level.js';
import { applyRunnerRules, EMPTY_RUNNER_STATE, noRunnerReason, runnerOutcome, type InventoryRunner, type RunnerState } from './runners.js';
import { applyTagChange, unique, type TagChange } from './tags.js';

/** One level's part in a chain's answer. */
export interface LevelExplanation extends LevelAnswer {
  level: Level;
  name: string;
  dryRun: boolean;
  /** The runner lists after this level (for a dry-run level: what they would have been). */
  eligibleRunners: { accepted: string[]; rejected: string[] };
  /**
   * For a dry-run level, what it would have done as the chain's reason says it
   * (`dry run (acme): would reject: …`; `""` when there is nothing to report);
   * `""` for other levels.
   */
  report: string;
}

/** The chain's answer for one valid job. */
export interface ChainResult {
  admission: 'accepted' | 'rejected';
  reason: string;
  /** Against the job's original tags (empty when rejected). */
  tags: TagChange;
  /** The tags the job ends with (its original tags when rejected). */
  finalTags: string[];
  /** Runner lists for the response (empty when rejected or unrestricted). */
  runners: { accepted: string[]; rejected: string[] };
  levels: LevelExplanation[];
  /** The first unusable policy outcome, when that caused the rejection. */
  error?: JobAdmissionError;
}

function dryRunReason(name: string, answer: LevelAnswer, noRunner: string | undefined): string {
  const head = `dry run (${name}): would`;
  if (answer.admission === 'rejected') return `${head} reject: ${answer.reason}`;
  if (noRunner) return `${head} reject: ${join([answer.reason, noRunner])}`;
  const changes = [
    answer.tags.add.length ? `add tags ${answer.tags.add.join(', ')}` : '',
    answer.tags.remove.length ? `remove tags ${answer.tags.remove.join(', ')}` : '',
    ...answer.runners.map((r) => [r.accept ? 'restrict runners' : '', r.reject ? 'reject runners' : ''].filter(Boolean).join(' and ')),
  ].filter(Boolean);
  if (changes.length === 0 && answer.reason === '') return '';
  return `${head} accept${changes.length ? ` (${unique(changes).join(', ')})` : ''}${answer.reason ? `: ${answer.reason}` : ''}`;
}

/** Runs a job through the chain. Never throws for policy outcomes. */
export function runChain(levels: readonly CompiledLevel[], job: Job, inventory: readonly InventoryRunner[] | undefined): ChainResult {
  let tags = [...job.tags];
  const added: string[] = [];
  let runners: RunnerState = EMPTY_RUNNER_STATE;
  const reasons: string[] = [];
  const explained: LevelExplanation[] = [];
  const rejected = (error?: JobAdmissionError): ChainResult => {
    const result: ChainResult = { admission: 'rejected', reason: join(reasons), tags: { add: [], remove: [] }, finalTags: [...job.tags], runners: { accepted: [], rejected: [] }, levels: explained };
    if (error) result.error = error;
    return result;
  };

  for (const level of levels) {
    const { controller } = level;
    let answer = runLevel(level, job, tags);
    let next = runners;
    if (answer.admission === 'accepted') {
      try {
        next = applyRunnerRules(runners, answer.runners, inventory);
      } catch (error) {
        if (!(error instanceof JobAdmissionError)) throw error;
        answer = { ...answer, admission: 'rejected', reason: error.message, tags: { add: [], remove: [] }, runners: [], error };
      }
    }
    const outcome = runnerOutcome(answer.admission === 'accepted' ? next : runners, inventory);
    const noRunner = answer.admission === 'accepted' && outcome.empty ? noRunnerReason(next, inventory) : undefined;
    const report = controller.dryRun ? dryRunReason(controller.name, answer, noRunner) : '';
    explained.push({ ...answer, level: controller.level, name: controller.name, dryRun: controller.dryRun, eligibleRunners: { accepted: outcome.accepted, rejected: outcome.rejected }, report });

    if (controller.dryRun) {
      reasons.push(report);
      continue;
    }
    reasons.push(answer.reason);
    if (answer.admission === 'rejected') return rejected(answer.error);
    if (noRunner) {
      reasons.push(noRunner);
      return rejected();
    }
    tags = applyTagChange(tags, answer.tags);
    added.push(...answer.tags.add);
    runners = next;
  }

  const kept = new Set(tags);
  const final = runnerOutcome(runners, inventory);
  return {
    admission: 'accepted',
    reason: join(reasons),
    tags: { add: unique(added).filter((t) => kept.has(t)), remove: job.tags.filter((t) => !kept.has(t)) },
    finalTags: tags,
    runners: { accepted: final.accepted, rejected: final.rejected },
    levels: explained,
  };
}
