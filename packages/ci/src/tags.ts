/**
 * Tag changes. A level's decision patches the job input; the patch may only
 * touch `/tags` and `/untag`. A level's answer is `{add, remove}`: `add`
 * lists every tag its policies added (also one the job already had, as the
 * design's example reports) that survives; `remove` the entering tags it
 * dropped or untagged. Applying an answer: (current ∪ add) \ remove.
 */
import type { Decision } from '@verdict/core';
import { describe, JobAdmissionError } from './errors.js';

/** Tag changes as the response reports them. */
export interface TagChange {
  add: string[];
  remove: string[];
}

const TAG_PATH = /^\/(tags|untag)(\/(\d+|-))?$/;
const ELEMENT_PATH = /^\/tags\/(\d+|-)$/;

function stringList(value: unknown, what: string, policies: string): string[] {
  if (!Array.isArray(value) || !value.every((t) => typeof t === 'string' && t.trim() !== '')) {
    throw new JobAdmissionError('INVALID_MUTATION', `${what} must stay a list of non-empty strings, but the mutations of ${policies} left ${describe(value)}`, { path: `/${what}` });
  }
  return value as string[];
}

/** Keeps the first occurrence of each value. */
export function unique(values: Iterable<string>): string[] {
  return [...new Set(values)];
}

/**
 * Reads one level's tag answer from its decision, relative to `start` (the
 * tags the level saw). Throws `INVALID_MUTATION` when a policy patched
 * anything but `/tags` and `/untag` or left them invalid.
 */
export function levelTagChange(start: readonly string[], decision: Decision, level: string): TagChange {
  if (decision.patch.length === 0) return { add: [], remove: [] };
  const mutating: string[] = [];
  for (const t of decision.trace) {
    if (!t.patch?.length) continue;
    mutating.push(`"${t.policy}"`);
    for (const op of t.patch) {
      for (const path of op.from === undefined ? [op.path] : [op.path, op.from]) {
        if (!TAG_PATH.test(path)) {
          throw new JobAdmissionError('INVALID_MUTATION', `policy "${t.policy}" (${level}) patched ${path || '/'}; CI policies may change only the job's tags (/tags, /untag)`, { path });
        }
      }
    }
  }
  const who = `policy ${mutating.join(', ')} (${level})`;
  const mutated = decision.mutated as { tags?: unknown; untag?: unknown } | undefined;
  const final = stringList(mutated?.tags, 'tags', who);
  const untag = new Set(stringList(mutated?.untag ?? [], 'untag', who));

  const asserted: string[] = [];
  for (const op of decision.patch) {
    if (op.op !== 'add' && op.op !== 'replace') continue;
    if (op.path === '/tags' && Array.isArray(op.value)) asserted.push(...op.value.filter((v): v is string => typeof v === 'string'));
    else if (ELEMENT_PATH.test(op.path) && typeof op.value === 'string') asserted.push(op.value);
  }
  const left = new Map(start.map((t) => [t, 1]));
  const appeared = final.filter((t) => {
    const n = left.get(t) ?? 0;
    if (n > 0) left.set(t, n - 1);
    return n === 0;
  });
  const present = new Set(final);
  return {
    add: unique([...asserted, ...appeared]).filter((t) => present.has(t) && !untag.has(t)),
    remove: start.filter((t) => !present.has(t) || untag.has(t)),
  };
}

/** (current ∪ add) \ remove, order kept, no duplicates. */
export function applyTagChange(current: readonly string[], change: TagChange): string[] {
  const removed = new Set(change.remove);
  return unique([...current, ...change.add]).filter((t) => !removed.has(t));
}
