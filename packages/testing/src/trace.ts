/**
 * The trace of a decision, written for a person: which policies matched (and
 * which selector part ruled the others out), which parameterSelection entry
 * won, the merged parameters, each rule's result with its messages, the
 * patch. Used by failing matchers, suite reports and `verdict explain`.
 */
import type { Decision, PatchOperation, PolicyTrace, RuleTrace, SelectionTrace } from '@verdict/core';
import { inline } from './text.js';
import { actionWord, describeDocument, dryRunWord, describePlace, describeParams, describeTranslatedSelection, seesParams, translatedEntryName } from './trace-words.js';

/** Colour hooks; each defaults to the identity (plain text). */
export interface TraceStyle {
  ok(text: string): string;
  bad(text: string): string;
  warn(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

/** Options of {@link formatTrace} and {@link formatPolicyTrace}: which policies, and how they are drawn. */
export interface FormatTraceOptions {
  /** Only these policies (by `name` or `Kind/name`). Default: every policy in the trace. */
  policies?: readonly string[];
  /** Leave out policies whose selectors did not match (default false). */
  matchedOnly?: boolean;
  style?: Partial<TraceStyle>;
}

const plain = (text: string) => text;

function styleOf(style: Partial<TraceStyle> | undefined): TraceStyle {
  return { ok: style?.ok ?? plain, bad: style?.bad ?? plain, warn: style?.warn ?? plain, dim: style?.dim ?? plain, bold: style?.bold ?? plain };
}

/** True when `key` names the policy: its `name` or `Kind/name`. */
export function policyKeyMatches(trace: { policy: string; kind: string }, key: string): boolean {
  return key === trace.policy || key === `${trace.kind}/${trace.policy}`;
}

function entryName(entry: { index: number; name?: string }): string {
  return `entry ${entry.index}${entry.name !== undefined ? ` "${entry.name}"` : ''}`;
}

/** One line saying how parameterSelection chose (or refused to choose) the parameters. */
export function describeSelection(selection: SelectionTrace): string {
  const rule = `onParameterSelectionNoMatch: ${selection.outcome.replace('no-match-', '')}`;
  switch (selection.outcome) {
    case 'no-entries':
      return 'no parameterSelection entries: spec.parameters used';
    case 'selected':
      return selection.matched.length === 1
        ? `parameterSelection (${selection.behavior}): ${entryName(selection.matched[0]!)} won`
        : `parameterSelection (${selection.behavior}): ${selection.matched.map(entryName).join(', ')} merged in this order`;
    case 'no-match-proceed':
      return `parameterSelection (${selection.behavior}): no entry matched, spec.parameters used (${rule})`;
    case 'no-match-allow':
      return `parameterSelection (${selection.behavior}): no entry matched, policy skipped (${rule})`;
    case 'no-match-warn':
      return `parameterSelection (${selection.behavior}): no entry matched, policy skipped with a warning (${rule})`;
    case 'no-match-deny':
      return `parameterSelection (${selection.behavior}): no entry matched, denied (${rule})`;
  }
}

function ruleLine(rule: RuleTrace, s: TraceStyle, owner?: PolicyTrace['source']): string {
  const line = ruleResult(rule, s);
  return rule.source ? `${line} ${s.dim(`(${describePlace(rule.source, owner ?? rule.source)})`)}` : line;
}

function ruleResult(rule: RuleTrace, s: TraceStyle): string {
  const counts = rule.elements === undefined ? '' : rule.violations ? ` (${rule.violations} of ${rule.elements} elements failed)` : ` (${rule.elements} element${rule.elements === 1 ? '' : 's'})`;
  const kind = rule.type === 'mutate' ? 'mutate ' : '';
  switch (rule.result) {
    case 'pass':
      return `${s.ok('✓')} ${kind}${rule.rule}${counts}`;
    case 'fail':
      // A part other than the test failed (a messageExpression): its message says what and why.
      return `${s.bad('✗')} ${kind}${rule.rule}${counts}${rule.at !== undefined && rule.message ? `: ${rule.message}` : ''}`;
    case 'error':
      return `${s.bad('!')} ${kind}${rule.rule}: error: ${rule.message ?? 'unknown'}`;
    case 'skipped':
      return `${s.dim('-')} ${kind}${rule.rule}: skipped${rule.message ? ` (${rule.message})` : ''}`;
  }
}

/** The lines for one policy of a decision's trace. */
export function formatPolicyTrace(trace: PolicyTrace, decision?: Pick<Decision, 'violations'>, options: FormatTraceOptions = {}): string[] {
  const s = styleOf(options.style);
  // A translated policy (core's `source`, with explain) speaks of the user's documents and places.
  const own = trace.source;
  const at = (m: { at: string; source?: PolicyTrace['source'] }) => (m.source ? describePlace(m.source, own) : m.at);
  const params = seesParams(trace);
  const set = trace.parameterSet === undefined || params ? '' : ` ${s.dim(`(parameter set ${trace.parameterSet})`)}`;
  const action = actionWord(trace);
  const where = own ? describePlace(own, own) : '';
  // A policy of a CI chain's dry-run level: what it denies is reported, not enforced.
  const dryRun = dryRunWord(trace);
  const head = `${s.bold(`${trace.kind}/${trace.policy}`)}${set}${action === undefined ? '' : ` ${s.dim(`[${action}]`)}`}${dryRun === undefined ? '' : ` ${s.warn(`[${dryRun}]`)}`}${where ? ` ${s.dim(`(${where})`)}` : ''}`;
  if (!trace.matched) {
    if (trace.error) return [`${head}: ${s.bad('error while matching')}: ${trace.error}`];
    const why = trace.mismatch ? `${trace.mismatch.selector} ${s.dim(`(${at(trace.mismatch)})`)}` : 'no selector matched';
    return [`${head}: ${s.dim('not matched')}: requires ${why}`];
  }
  // A translated policy none of whose selectors matched (kinitiras' resourceSelectors) does not apply: it is not matched, in its words.
  if (own && trace.selection?.outcome === 'no-match-allow' && trace.rules.length === 0) {
    return [`${head}: ${s.dim('not matched')}: no selector matched`, ...(trace.selection.mismatches ?? []).map((m) =>
      `  ${s.dim(`${translatedEntryName(m)} did not match: requires ${m.selector} (${at(m)})`)}`)];
  }
  const lines = [`${head}: ${s.ok('matched')}`];
  // The document its rules were written in, when not the policy's own (a binding's policy, a constraint's template).
  const written = trace.rules.find((r) => r.source)?.source;
  if (written && (!own || written.document !== own.document)) lines.push(`  ${s.dim(`from ${describeDocument(written)}`)}`);
  // A policy without parameterSelection entries (any ValidatingAdmissionPolicy binding or Kyverno policy, most constraints) says nothing
  // about it: its parameters line follows.
  if (trace.selection && trace.selection.outcome !== 'no-entries') {
    lines.push(`  ${own ? describeTranslatedSelection(trace.selection) : describeSelection(trace.selection)}`);
    for (const m of trace.selection.mismatches ?? []) {
      lines.push(`    ${s.dim(`${own ? translatedEntryName(m) : entryName(m)} did not match: requires ${m.selector} (${at(m)})`)}`);
    }
  }
  if (trace.error) lines.push(`  ${s.bad('error')}: ${trace.error}`);
  if (params) {
    // What the binding's policy sees as `params`: the parameter object, named (none: the policy has no paramKind).
    const seen = trace.parameters === undefined || trace.parameterSet === undefined ? undefined : describeParams(trace.parameters);
    if (seen !== undefined) lines.push(`  params: ${seen}`);
    // Matched with no parameter object and nothing run: its paramRef found none, and parameterNotFoundAction is Allow.
    else if (trace.parameterSet === undefined && trace.rules.length === 0 && !trace.error) lines.push(`  ${s.dim('params: no parameter object found for its paramRef: not evaluated (parameterNotFoundAction: Allow)')}`);
  } else if (trace.parameters && !(own && Object.keys(trace.parameters).length === 0)) lines.push(`  parameters: ${inline(trace.parameters, 300)}`);
  for (const [name, value] of Object.entries(trace.variables ?? {})) lines.push(`  variables.${name} = ${inline(value, 200)}`);
  const patchLine = (op: PatchOperation) => `patch: ${op.op} ${op.path}${'value' in op ? ` = ${inline(op.value, 120)}` : ''}${'from' in op ? ` from ${op.from}` : ''}`;
  for (const rule of trace.rules) {
    lines.push(`  ${ruleLine(rule, s, written)}`);
    // Which rule made each operation of the patch (the policy's list follows when rules do not say).
    for (const op of rule.patch ?? []) lines.push(`      ${patchLine(op)}`);
    if (rule.result === 'fail' && decision) {
      const messages = decision.violations.filter((v) => v.policy === trace.policy && v.kind === trace.kind && v.rule === rule.rule && v.parameterSet === trace.parameterSet);
      for (const v of messages.slice(0, 10)) lines.push(`      ${v.message}${v.path ? s.dim(` (${v.path})`) : ''}`);
      if (messages.length > 10) lines.push(`      … and ${messages.length - 10} more`);
    }
  }
  if (!trace.rules.some((r) => r.patch)) for (const op of trace.patch ?? []) lines.push(`  ${patchLine(op)}`);
  return lines;
}

/**
 * Formats a decision's trace (or a bare trace list), one block per policy in
 * evaluation order. Returns `(no policies were evaluated)` for an empty trace.
 */
export function formatTrace(decision: Decision | readonly PolicyTrace[], options: FormatTraceOptions = {}): string {
  const traces = Array.isArray(decision) ? (decision as readonly PolicyTrace[]) : (decision as Decision).trace;
  const full = Array.isArray(decision) ? undefined : (decision as Decision);
  const picked = traces.filter((t) =>
    (!options.policies || options.policies.some((key) => policyKeyMatches(t, key))) && (!options.matchedOnly || t.matched));
  const lines = picked.flatMap((t) => formatPolicyTrace(t, full, options));
  if (full) {
    const s = styleOf(options.style);
    for (const e of full.errors.filter((x) => x.policy === undefined)) lines.push(`${s.bad('error')}: ${e.message}`);
    if (!options.policies && full.skipped > 0) lines.push(s.dim(`(${full.skipped} more ${full.skipped === 1 ? 'policy was' : 'policies were'} ruled out by the selector index)`));
  }
  return lines.length ? lines.join('\n') : '(no policies were evaluated)';
}
