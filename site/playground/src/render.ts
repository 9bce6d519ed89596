/**
 * The result pane: the decision, violations, warnings, errors, the patch and
 * the trace (which policies matched, which parameterSelection entry won, the
 * merged parameters, each rule), with links to the policy lines they come from.
 */
import { sourceLocation, type Decision, type PolicyDocument, type PolicyTrace } from '@verdict/core';
import type { RunResult, TextProblem } from './run.js';

type Child = Node | string | undefined | false;

/** Creates an element; text children are set as text, never parsed as HTML. */
export function h(tag: string, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
  for (const child of children) if (child !== undefined && child !== false) el.append(child);
  return el;
}

const json = (value: unknown) => h('pre', { class: 'json' }, JSON.stringify(value, null, 2));

/** Jumps to a line of an editor. */
export type Reveal = (editor: TextProblem['editor'], line: number) => void;

function lineLink(reveal: Reveal, line: number | undefined, editor: TextProblem['editor'] = 'policies'): Child {
  if (line === undefined) return undefined;
  const link = h('button', { type: 'button', class: 'line-link', title: `show line ${line} of the ${editor}` }, `line ${line}`);
  link.addEventListener('click', () => reveal(editor, line));
  return link;
}

function documentOf(documents: readonly PolicyDocument[], trace: PolicyTrace): PolicyDocument | undefined {
  return documents.find((doc) => {
    const metadata = doc['metadata'] as Record<string, unknown> | undefined;
    return metadata?.['name'] === trace.policy && (doc['kind'] === trace.kind || trace.kind === 'Policy');
  });
}

/** The line of a pointer in a policy's document (a translated policy's places carry their own line in `source`, which wins). */
function lineOf(doc: PolicyDocument | undefined, pointer: string): number | undefined {
  return doc ? sourceLocation(doc, pointer)?.line : undefined;
}

function selection(trace: PolicyTrace, doc: PolicyDocument | undefined, reveal: Reveal): Child {
  const s = trace.selection;
  if (!s) return undefined;
  const won = s.matched.map((entry) => h('span', { class: 'entry' }, `entry ${entry.index}${entry.name ? ` (${entry.name})` : ''} `, lineLink(reveal, lineOf(doc, `/spec/parameterSelection/${entry.index}`))));
  const outcome: Record<typeof s.outcome, string> = {
    'selected': s.matched.length > 1 ? 'entries merged in order over spec.parameters:' : 'won:',
    'no-entries': 'no entries: spec.parameters as they are',
    'no-match-proceed': 'no entry matched: spec.parameters (onParameterSelectionNoMatch: proceed)',
    'no-match-allow': 'no entry matched: the policy is skipped (allow)',
    'no-match-warn': 'no entry matched: skipped with a warning',
    'no-match-deny': 'no entry matched: denied',
  };
  const misses = (s.mismatches ?? []).map((m) => h('li', {}, `entry ${m.index}${m.name ? ` (${m.name})` : ''} did not match at ${m.at}: ${m.selector} `, lineLink(reveal, m.source?.line ?? lineOf(doc, m.at))));
  return h('div', { class: 'selection', 'data-testid': 'selection' },
    h('span', { class: 'label' }, `parameterSelection (${s.behavior}) `), outcome[s.outcome], ' ', ...won,
    misses.length > 0 && h('ul', { class: 'misses' }, ...misses));
}

function rules(trace: PolicyTrace): Child {
  if (trace.rules.length === 0) return undefined;
  return h('table', { class: 'rules' },
    h('thead', {}, h('tr', {}, h('th', {}, 'rule'), h('th', {}, 'type'), h('th', {}, 'result'), h('th', {}, 'detail'))),
    h('tbody', {}, ...trace.rules.map((rule) => h('tr', { class: `rule-${rule.result}` },
      h('td', {}, rule.rule), h('td', {}, rule.type), h('td', {}, rule.result),
      h('td', {}, [rule.elements !== undefined ? `${rule.violations ?? 0} of ${rule.elements} elements failed` : '', rule.message ?? ''].filter(Boolean).join('; '))))));
}

/** A policy failed when a rule failed or errored, or the policy itself errored. */
function isFailed(trace: PolicyTrace): boolean {
  return trace.error !== undefined || trace.rules.some((r) => r.result === 'fail' || r.result === 'error');
}

function policyCard(trace: PolicyTrace, documents: readonly PolicyDocument[], reveal: Reveal, focus: boolean): HTMLElement {
  const doc = documentOf(documents, trace);
  const failed = isFailed(trace);
  const state = !trace.matched ? 'not matched' : failed ? 'matched, failed' : 'matched, passed';
  const card = h('details', { class: `policy ${trace.matched ? 'matched' : 'unmatched'} ${failed ? 'failed' : ''}`, 'data-testid': 'policy-trace', 'data-policy': trace.policy },
    h('summary', {}, h('strong', {}, trace.policy), ` ${trace.kind} · ${trace.enforcementAction} · ${state} `, lineLink(reveal, lineOf(doc, ''))),
    !trace.matched && trace.mismatch && h('p', { class: 'mismatch' }, `spec.match failed at ${trace.mismatch.at}: ${trace.mismatch.selector} `, lineLink(reveal, trace.mismatch.source?.line ?? lineOf(doc, trace.mismatch.at))),
    selection(trace, doc, reveal),
    trace.parameters && h('div', { class: 'parameters', 'data-testid': 'parameters' }, h('span', { class: 'label' }, 'merged parameters'), json(trace.parameters)),
    rules(trace),
    trace.patch && trace.patch.length > 0 && h('div', {}, h('span', { class: 'label' }, 'patch'), json(trace.patch)),
    trace.error && h('p', { class: 'error' }, trace.error));
  // Open what explains the decision: the failing policies when any failed, else every matched one.
  if (trace.matched && (failed || !focus)) card.setAttribute('open', '');
  return card;
}

function problems(list: readonly TextProblem[], reveal: Reveal): HTMLElement {
  return h('ul', { class: 'problems', 'data-testid': 'problems' }, ...list.map((p) =>
    h('li', {}, h('span', { class: 'where' }, `${p.editor}${p.line !== undefined ? `:${p.line}${p.column !== undefined ? `:${p.column}` : ''}` : ''}`), ' ',
      p.code ? h('code', {}, p.code) : '', ' ', p.message, ' ', lineLink(reveal, p.line, p.editor))));
}

/** Violations, warnings, errors, patch and trace of one decision (under a heading naming its CI level, when given). */
function decisionParts(d: Decision, documents: readonly PolicyDocument[], reveal: Reveal, label?: string): Child[] {
  const parts: Child[] = [];
  if (label) parts.push(h('h3', { class: 'level' }, `The ${label}`));
  if (d.violations.length > 0) {
    parts.push(h('h3', {}, `Violations (${d.violations.length})`), h('ul', { class: 'violations', 'data-testid': 'violations' },
      ...d.violations.map((v) => h('li', { class: v.enforcementAction }, h('strong', {}, `[${v.policy}] `), v.message, h('span', { class: 'meta' }, ` ${v.rule} · ${v.enforcementAction}${v.path ? ` · ${v.path}` : ''}`)))));
  }
  if (d.warnings.length > 0) parts.push(h('h3', {}, 'Warnings'), h('ul', { class: 'warnings' }, ...d.warnings.map((w) => h('li', {}, w))));
  if (d.errors.length > 0) parts.push(h('h3', {}, 'Errors'), h('ul', { class: 'errors' }, ...d.errors.map((e) => h('li', {}, h('code', {}, e.code), ` ${e.policy ? `[${e.policy}] ` : ''}${e.message}`))));
  if (d.patch.length > 0) parts.push(h('h3', {}, 'Mutation patch'), h('div', { 'data-testid': 'patch' }, json(d.patch)));
  parts.push(h('h3', {}, 'Trace'));
  parts.push(d.trace.length === 0 ? h('p', {}, 'No policy was evaluated.') : h('div', { class: 'trace', 'data-testid': 'trace' }, ...d.trace.map((t) => policyCard(t, documents, reveal, d.trace.some(isFailed)))));
  return parts;
}

/** Renders `result` into `target`; `expected` is what the example's suite expects, when known. */
export function renderResult(target: HTMLElement, result: RunResult, reveal: Reveal, expected?: 'allowed' | 'denied'): void {
  const parts: Child[] = [];
  if (result.problems.length > 0) {
    parts.push(h('div', { class: 'verdict error', 'data-testid': 'verdict' }, 'Cannot evaluate'), problems(result.problems, reveal));
    target.replaceChildren(...parts.filter((p): p is Node => p instanceof Node));
    return;
  }
  const allowed = result.allowed === true;
  parts.push(h('div', { class: `verdict ${allowed ? 'allowed' : 'denied'}`, 'data-testid': 'verdict' }, allowed ? 'Allowed' : 'Denied'));
  if (result.summary) parts.push(h('p', { class: 'summary', 'data-testid': 'summary' }, result.summary));
  if (expected) {
    const same = (expected === 'allowed') === allowed;
    parts.push(h('p', { class: `expected ${same ? 'same' : 'different'}` }, `The example's suite expects ${expected}${same ? '' : ': this differs'}`));
  }
  for (const { label, decision } of result.decisions) parts.push(...decisionParts(decision, result.documents, reveal, label));
  if (result.answer !== undefined) parts.push(h('details', { class: 'answer' }, h('summary', {}, 'The adapter’s answer (JSON)'), json(result.answer)));
  target.replaceChildren(...parts.filter((p): p is Node => p instanceof Node));
}
