/**
 * Runner filtering. Policies restrict runners through the reserved parameter
 * `runners: {accept, acceptTags, reject, rejectTags}`; restrictions of every
 * matched policy, at every level, combine as: eligible = (∩ of the accepted
 * sets, or all) minus (∪ of the rejected sets). Ids are compared as strings.
 */
import { anyGlobMatcher, isGlob } from '@verdict/core';
import { describe, JobAdmissionError } from './errors.js';
import { isObject } from './check.js';

/** One runner of the inventory; extra fields (description, runner_type, …) are kept and ignored. */
export interface Runner {
  id: string | number;
  /** The runner's tags (default none). */
  tags?: readonly string[];
  [field: string]: unknown;
}

/** The reserved `runners` parameter of a CI policy. Lists hold ids (or id globs) and tag globs. */
export interface RunnerParameters {
  /** Runner ids the job may use. With `acceptTags`, a runner is accepted when either matches. `[]` accepts none. */
  accept?: ReadonlyArray<string | number>;
  /** Runners with any tag matching one of these globs may be used (needs an inventory). */
  acceptTags?: readonly string[];
  /** Runner ids the job must not use. */
  reject?: ReadonlyArray<string | number>;
  /** Runners with any tag matching one of these globs must not be used (needs an inventory). */
  rejectTags?: readonly string[];
}

export interface InventoryRunner {
  id: string;
  tags: readonly string[];
}

interface Side {
  ids: string[];
  tags: string[];
}

/** One policy's restriction, read from its merged parameters. */
export interface RunnerRule {
  /** `policy (level name)`, for reasons. */
  source: string;
  accept?: Side;
  reject?: Side;
}

/** The combined restriction so far. Immutable: {@link applyRunnerRules} returns a new state. */
export interface RunnerState {
  /** Ids accepted by every accepting rule; `undefined` while no rule accepted (all runners). */
  accepted?: ReadonlySet<string>;
  rejected: ReadonlySet<string>;
  /** Ids in first-seen order (without an inventory). */
  order: readonly string[];
  /** What each rule did, for the no-runner reason. */
  notes: readonly string[];
}

export const EMPTY_RUNNER_STATE: RunnerState = { rejected: new Set(), order: [], notes: [] };

const KEYS = ['accept', 'acceptTags', 'reject', 'rejectTags'] as const;

/** Validates a runner inventory. Throws `INVALID_RUNNERS` naming the bad entry. */
export function checkInventory(value: unknown, base = '/runners'): InventoryRunner[] {
  if (!Array.isArray(value)) throw new JobAdmissionError('INVALID_RUNNERS', `the runner inventory must be a list of {id, tags} (got ${describe(value)})`, { path: base });
  const seen = new Set<string>();
  return value.map((runner: unknown, i) => {
    const at = `${base}/${i}`;
    const id = isObject(runner) ? runner['id'] : undefined;
    if (!isObject(runner) || !((typeof id === 'string' && id !== '') || (typeof id === 'number' && Number.isFinite(id)))) {
      throw new JobAdmissionError('INVALID_RUNNERS', `runner ${i} must be an object with a string or number "id" (got ${isObject(runner) ? `id ${describe(id)}` : describe(runner)})`, { path: isObject(runner) ? `${at}/id` : at });
    }
    const key = String(id);
    if (seen.has(key)) throw new JobAdmissionError('INVALID_RUNNERS', `runner id "${key}" appears twice in the inventory`, { path: `${at}/id` });
    seen.add(key);
    const tags = runner['tags'] ?? [];
    if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string')) {
      throw new JobAdmissionError('INVALID_RUNNERS', `runner "${key}" must have "tags" as a list of strings (got ${describe(tags)})`, { path: `${at}/tags` });
    }
    return { id: key, tags: tags as string[] };
  });
}

function strings(params: Record<string, unknown>, key: (typeof KEYS)[number], source: string): string[] | undefined {
  const value = params[key];
  if (value === undefined || value === null) return undefined;
  const tagsOnly = key.endsWith('Tags');
  if (!Array.isArray(value) || !value.every((v) => (typeof v === 'string' && v !== '') || (!tagsOnly && typeof v === 'number'))) {
    throw new JobAdmissionError('INVALID_RUNNER_PARAMETERS', `${source}: parameter runners.${key} must be a list of ${tagsOnly ? 'tag globs' : 'runner ids'} (got ${describe(value)})`, { path: `/parameters/runners/${key}` });
  }
  return value.map(String);
}

/** Reads the `runners` parameter of one matched policy (`undefined` when it has none). */
export function readRunnerRule(parameters: Readonly<Record<string, unknown>> | undefined, source: string): RunnerRule | undefined {
  const value = parameters?.['runners'];
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) {
    throw new JobAdmissionError('INVALID_RUNNER_PARAMETERS', `${source}: parameter "runners" must be an object {accept, acceptTags, reject, rejectTags} (got ${describe(value)})`, { path: '/parameters/runners' });
  }
  for (const key of Object.keys(value)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      throw new JobAdmissionError('INVALID_RUNNER_PARAMETERS', `${source}: unknown key "${key}" in parameter "runners" (allowed: ${KEYS.join(', ')})`, { path: `/parameters/runners/${key}` });
    }
  }
  const rule: RunnerRule = { source };
  const [accept, acceptTags, reject, rejectTags] = KEYS.map((k) => strings(value, k, source));
  if (accept || acceptTags) rule.accept = { ids: accept ?? [], tags: acceptTags ?? [] };
  if (reject || rejectTags) rule.reject = { ids: reject ?? [], tags: rejectTags ?? [] };
  return rule.accept || rule.reject ? rule : undefined;
}

function sideText(side: Side): string {
  const parts = [side.ids.length ? `runners ${side.ids.join(', ')}` : '', side.tags.length ? `runners tagged ${side.tags.join(', ')}` : ''].filter(Boolean);
  return parts.length ? parts.join(' or ') : 'no runner';
}

function resolve(side: Side, inventory: readonly InventoryRunner[] | undefined, source: string): string[] {
  if (!inventory) {
    if (side.tags.length > 0 || side.ids.some(isGlob)) {
      throw new JobAdmissionError('INVALID_RUNNER_PARAMETERS', `${source} selects runners by ${side.tags.length ? 'tag' : 'id glob'}, which needs a runner inventory: pass "runners" to createJobAdmission (in a suite, evaluateInput or verdict eval: the ci: {runners} option)`, { path: '/parameters/runners' });
    }
    return side.ids;
  }
  const byId = anyGlobMatcher(side.ids);
  const byTag = anyGlobMatcher(side.tags);
  return inventory.filter((r) => byId(r.id) || r.tags.some(byTag)).map((r) => r.id);
}

/** Applies the rules of one level to a state. Throws `INVALID_RUNNER_PARAMETERS` when a rule needs an inventory. */
export function applyRunnerRules(state: RunnerState, rules: readonly RunnerRule[], inventory: readonly InventoryRunner[] | undefined): RunnerState {
  let { accepted } = state;
  const rejected = new Set(state.rejected);
  const order = [...state.order];
  const notes = [...state.notes];
  const remember = (ids: readonly string[]) => {
    for (const id of ids) if (!order.includes(id)) order.push(id);
  };
  for (const rule of rules) {
    if (rule.accept) {
      const ids = resolve(rule.accept, inventory, rule.source);
      remember(ids);
      accepted = accepted ? new Set(ids.filter((id) => accepted!.has(id))) : new Set(ids);
      notes.push(`${rule.source} accepts ${sideText(rule.accept)}`);
    }
    if (rule.reject) {
      const ids = resolve(rule.reject, inventory, rule.source);
      remember(ids);
      for (const id of ids) rejected.add(id);
      notes.push(`${rule.source} rejects ${sideText(rule.reject)}`);
    }
  }
  return accepted ? { accepted, rejected, order, notes } : { rejected, order, notes };
}

/** The response's `runners` lists (both empty when no policy restricted runners) and whether any runner is left. */
export function runnerOutcome(state: RunnerState, inventory: readonly InventoryRunner[] | undefined): { accepted: string[]; rejected: string[]; empty: boolean } {
  if (state.notes.length === 0) return { accepted: [], rejected: [], empty: false };
  const universe = inventory ? inventory.map((r) => r.id) : state.order;
  const eligible = (id: string) => (state.accepted ? state.accepted.has(id) : true) && !state.rejected.has(id);
  if (state.accepted) {
    const accepted = universe.filter(eligible);
    const rejected = inventory ? universe.filter((id) => !eligible(id)) : universe.filter((id) => state.rejected.has(id));
    return { accepted, rejected, empty: accepted.length === 0 };
  }
  const rejected = universe.filter((id) => state.rejected.has(id));
  return { accepted: [], rejected, empty: inventory ? rejected.length === universe.length : false };
}

/** Why no runner is left, for the rejection reason. */
export function noRunnerReason(state: RunnerState, inventory: readonly InventoryRunner[] | undefined): string {
  const where = inventory ? ` (${inventory.length} runner${inventory.length === 1 ? '' : 's'} in the inventory)` : '';
  return `no runner is left for this job${where}: ${state.notes.join(', ')}`;
}
