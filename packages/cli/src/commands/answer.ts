/** A short, readable summary of an answer, for `eval -o text` and the head of `explain`. */
import type { Outcome } from '@verdict/testing';
import { inline } from '@verdict/testing/internal';
import type { Style } from '../io.js';

function verdictWord(outcome: Outcome, s: Style): string {
  if (outcome.kind === 'ci') return outcome.allowed ? s.ok('ACCEPTED') : s.bad('REJECTED');
  return outcome.allowed ? s.ok('ALLOWED') : s.bad('DENIED');
}

/** `ALLOWED`/`DENIED` (or `ACCEPTED`/`REJECTED`) with what explains it: denials, warnings, patch, tags, runners. */
export function describeAnswer(outcome: Outcome, adapter: string, s: Style): string {
  const where = [adapter, outcome.status !== undefined ? String(outcome.status) : ''].filter(Boolean).join(', ');
  const lines = [`${verdictWord(outcome, s)} ${s.dim(`(${where})`)}`];
  for (const d of outcome.denials) lines.push(`  ${s.bad('✗')} ${d}`);
  if (outcome.allowed && outcome.reason) lines.push(`  reason: ${outcome.reason}`);
  // A CI job's warnings (dry-run reports) are in its reason, and its patch is its tag changes, shown below.
  const ci = outcome.kind === 'ci';
  for (const w of ci ? [] : outcome.warnings) lines.push(`  ${s.warn('!')} ${w}`);
  for (const op of ci ? [] : (outcome.patch ?? [])) lines.push(`  patch: ${op.op} ${op.path}${'value' in op ? ` = ${inline(op.value, 120)}` : ''}`);
  const tags = outcome.ci?.tags;
  if (tags?.add?.length) lines.push(`  tags added: ${tags.add.join(', ')}`);
  if (tags?.remove?.length) lines.push(`  tags removed: ${tags.remove.join(', ')}`);
  const missing = /needs the labels of namespace "([^"]*)"/.exec(outcome.denials.join('\n'));
  if (missing) lines.push(s.dim(`  hint: give the labels of namespace "${missing[1]}" with --namespace-labels key=value, or kubernetes.namespaces in --config`));
  const runners = outcome.ci?.runners;
  if (runners?.accepted_ids?.length) lines.push(`  runners accepted: ${runners.accepted_ids.join(', ')}`);
  if (runners?.rejected_ids?.length) lines.push(`  runners rejected: ${runners.rejected_ids.join(', ')}`);
  return lines.join('\n');
}
