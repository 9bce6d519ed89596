/**
 * `verdict diff` output: per changed object, what changed (decision and
 * findings) and why, the two traces side by side (base | head), then counts.
 */
import { formatTrace } from '@verdict/testing';
import type { Decision } from '@verdict/core';
import type { Style } from '../io.js';
import type { AuditedObject, PolicyResult } from './audit-results.js';
import { describeObject, where } from './audit-table.js';

/** How an object's decision changed between the two policy sets. */
export type Change = 'newly-denied' | 'newly-allowed' | 'findings';

/** One object whose decision or findings differ. */
export interface ObjectChange {
  change: Change;
  base: AuditedObject;
  head: AuditedObject;
  /** Findings (fail, warn, error) only in head. */
  added: PolicyResult[];
  /** Findings only in base. */
  removed: PolicyResult[];
  /** The explained decisions (every policy, with why those that did not match did not). */
  traces?: { base?: Decision; head?: Decision };
  /** Policies (`Kind/name`) whose results differ, for the trace. */
  policies: string[];
}

/** The findings of an object as comparable keys. */
export function findingKey(r: PolicyResult, message: string): string {
  return `${r.kind}/${r.policy}\u0000${r.rule}\u0000${r.status}\u0000${message}`;
}

function findings(o: AuditedObject): Map<string, PolicyResult> {
  const out = new Map<string, PolicyResult>();
  for (const r of o.results) {
    if (r.status !== 'fail' && r.status !== 'warn' && r.status !== 'error') continue;
    for (const m of r.messages.length ? r.messages : ['']) out.set(findingKey(r, m), { ...r, messages: m ? [m] : [] });
  }
  return out;
}

/** The change between two decisions of the same object, or `undefined` when they agree. */
export function compareObjects(base: AuditedObject, head: AuditedObject): ObjectChange | undefined {
  if (base.skipped !== undefined || head.skipped !== undefined) return undefined;
  const before = findings(base);
  const after = findings(head);
  const added = [...after].filter(([k]) => !before.has(k)).map(([, r]) => r);
  const removed = [...before].filter(([k]) => !after.has(k)).map(([, r]) => r);
  if (base.allowed === head.allowed && added.length === 0 && removed.length === 0) return undefined;
  const change: Change = base.allowed && !head.allowed ? 'newly-denied' : !base.allowed && head.allowed ? 'newly-allowed' : 'findings';
  const policies = [...new Set([...added, ...removed].map((r) => `${r.kind}/${r.policy}`))];
  return { change, base, head, added, removed, policies };
}

/** Wraps `line` to `width` columns, at a space when there is one, continuation rows keeping the indentation. */
export function wrap(line: string, width: number): string[] {
  const indent = /^\s*/.exec(line)![0].slice(0, Math.max(0, width - 10));
  const out: string[] = [];
  let rest = line;
  while (rest.length > width) {
    const space = rest.lastIndexOf(' ', width);
    const cut = space > indent.length + 1 ? space : width;
    out.push(rest.slice(0, cut));
    rest = indent + rest.slice(cut).trimStart();
  }
  out.push(rest);
  return out;
}

/** Two texts in columns `left │ right`, each wrapped to half of `width`. */
export function sideBySide(left: string, right: string, width: number, headings: [string, string]): string {
  const half = Math.max(20, Math.floor((width - 3) / 2));
  const l = [headings[0], ...left.split('\n')].flatMap((x) => wrap(x, half));
  const r = [headings[1], ...right.split('\n')].flatMap((x) => wrap(x, half));
  const rows: string[] = [];
  for (let i = 0; i < Math.max(l.length, r.length); i++) rows.push(`${(l[i] ?? '').padEnd(half)} │ ${r[i] ?? ''}`.trimEnd());
  return rows.join('\n');
}

const VERDICT = { true: 'allowed', false: 'denied' } as const;

function traceText(decision: Decision | undefined, policies: readonly string[]): string {
  if (!decision) return '(no decision: the input was refused before evaluation)';
  const text = formatTrace(decision, { policies });
  return text.trim() === '' ? '(no such policy in this set)' : text;
}

/** The text report. */
export function formatDiffTable(changes: readonly ObjectChange[], totals: { objects: number }, s: Style, width: number): string {
  const blocks: string[] = [];
  for (const c of changes) {
    const lines = [`${s.bold(where(c.head))}  ${describeObject(c.head)}  ${c.change === 'findings' ? VERDICT[`${c.head.allowed}`] : `${VERDICT[`${c.base.allowed}`]} → ${c.change === 'newly-denied' ? s.bad('denied') : s.ok('allowed')}`}`];
    for (const r of c.added) lines.push(`  ${s.bad('+')} ${r.status} [${r.policy}] ${r.messages[0] ?? r.rule}`);
    for (const r of c.removed) lines.push(`  ${s.ok('-')} ${r.status} [${r.policy}] ${r.messages[0] ?? r.rule}`);
    lines.push(sideBySide(traceText(c.traces?.base, c.policies), traceText(c.traces?.head, c.policies), width, ['base', 'head']).split('\n').map((l) => `    ${l}`).join('\n'));
    blocks.push(lines.join('\n'));
  }
  const count = (k: Change) => changes.filter((c) => c.change === k).length;
  const decided = count('newly-denied') + count('newly-allowed');
  const summary = `${totals.objects} objects: ${decided} change decision (${count('newly-denied')} newly denied, ${count('newly-allowed')} newly allowed), ${count('findings')} change findings only, ${totals.objects - changes.length} unchanged`;
  blocks.push(changes.length ? s.warn(summary) : s.ok(summary));
  return `${blocks.join('\n\n')}\n`;
}
