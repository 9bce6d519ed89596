/**
 * One controller level: evaluate its policies on the job input and turn the
 * decision into an answer: admission, reason, tag change, runner rules.
 */
import { compileTemplate, type CompiledTemplate, type Decision, type PolicySet } from '@verdict/core';
import { JobAdmissionError } from './errors.js';
import { toJobInput, type ControllerInfo, type JobInput } from './input.js';
import type { Job } from './job.js';
import { readRunnerRule, type RunnerRule } from './runners.js';
import { levelTagChange, type TagChange } from './tags.js';

/** A compiled chain level. */
export interface CompiledLevel {
  controller: ControllerInfo;
  policies: PolicySet;
}

/** What one level answered for one job. */
export interface LevelAnswer {
  admission: 'accepted' | 'rejected';
  /** This level's reason (`""` when it gave none). */
  reason: string;
  /** Tag changes relative to the tags the level saw (empty when rejected). */
  tags: TagChange;
  /** Runner restrictions of the level's matched policies (empty when rejected). */
  runners: RunnerRule[];
  input: JobInput;
  decision: Decision;
  /** Set when the answer is a rejection because the outcome was unusable (bad mutation, bad runners parameter). */
  error?: JobAdmissionError;
}

const templates = new Map<string, CompiledTemplate>();

function renderReason(text: string, input: JobInput, parameters: Readonly<Record<string, unknown>>, source: string): string {
  let template = templates.get(text);
  if (!template) {
    try {
      template = compileTemplate(text);
    } catch (error) {
      throw new JobAdmissionError('EVALUATION', `${source}: parameter "reason" is not a valid message template: ${(error as Error).message}`, { path: '/parameters/reason', cause: error });
    }
    if (templates.size >= 1000) templates.clear();
    templates.set(text, template);
  }
  const root: Record<string, unknown> = { ...input, parameters };
  return template.render((segments) => {
    let cur: unknown = root;
    for (const s of segments) {
      if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, s)) return undefined;
      cur = (cur as Record<string, unknown>)[s];
    }
    return cur;
  });
}

export function join(parts: readonly string[]): string {
  return parts.filter((p) => p.trim() !== '').join('; ');
}

function rejectionReason(decision: Decision, name: string): string {
  const parts = decision.violations.filter((v) => v.enforcementAction === 'deny').map((v) => v.message);
  const omitted = decision.omitted?.denials ?? 0;
  if (omitted > 0) parts.push(`and ${omitted} more violation${omitted === 1 ? '' : 's'}`);
  for (const e of decision.errors) {
    // First line only: some engine messages append a multi-line dump of the document.
    const message = e.message.split('\n')[0]!;
    if (e.enforcementAction === undefined || e.enforcementAction === 'deny') parts.push(e.policy ? `policy "${e.policy}" failed: ${message}` : `the job could not be evaluated: ${message}`);
  }
  return join(parts) || `rejected by the ${name} controller`;
}

/** Evaluates one level for a job whose tags are currently `tags`. Never throws for policy outcomes. */
export function runLevel(level: CompiledLevel, job: Job, tags: readonly string[]): LevelAnswer {
  const { controller, policies } = level;
  const input = toJobInput({ ...job, tags: [...tags] }, controller);
  const decision = policies.evaluate(input);
  const none: TagChange = { add: [], remove: [] };
  if (!decision.allowed) return { admission: 'rejected', reason: rejectionReason(decision, controller.name), tags: none, runners: [], input, decision };
  try {
    const change = levelTagChange(tags, decision, controller.name);
    const runners: RunnerRule[] = [];
    const reasons: string[] = [];
    for (const t of decision.trace) {
      if (!t.parameters) continue;
      const source = `policy "${t.policy}" (${controller.name})`;
      const rule = readRunnerRule(t.parameters, source);
      if (rule) runners.push(rule);
      const reason = t.parameters['reason'];
      if (typeof reason === 'string') reasons.push(renderReason(reason, input, t.parameters, source));
    }
    reasons.push(...decision.violations.filter((v) => v.enforcementAction === 'warn').map((v) => v.message));
    return { admission: 'accepted', reason: join(reasons), tags: change, runners, input, decision };
  } catch (error) {
    if (!(error instanceof JobAdmissionError)) throw error;
    return { admission: 'rejected', reason: error.message, tags: none, runners: [], input, decision, error };
  }
}
