/**
 * Matching and parameterSelection of one policy for one input: the first
 * part of an evaluation (evaluate.ts), which decides whether the policy's
 * rules run and with which parameters, and records why in its trace.
 */
import { BudgetExceeded } from './budget.js';
import type { CompiledEntry, CompiledPolicy, Variant } from './compile.js';
import type { Scope } from './logic/scope.js';
import { mergeParameters } from './merge.js';
import { passBudget, type Run } from './phases.js';
import type { SelectorNode } from './selectors/node.js';
import type { PolicyTrace, SelectionTrace } from './types.js';
import { deepClone, deepFreeze } from './util/object.js';

function mismatch(node: SelectorNode) {
  return { at: node.at, selector: node.text };
}

/** A budget exceeded while matching stops the evaluation with this policy's trace in the decision; other errors return. */
function stopped(error: unknown, policy: CompiledPolicy, trace: PolicyTrace, run: Run): void {
  if (error instanceof BudgetExceeded) run.trace.push(trace);
  passBudget(error, policy);
}

/**
 * `onParameterSelectionNoMatch` when no parameters apply (no parameterSelection entry matched, or an
 * evaluation-time resolver found none); true when the policy proceeds with `spec.parameters`.
 */
export function noMatch(policy: CompiledPolicy, run: Run, why: string): boolean {
  switch (policy.onNoMatch) {
    case 'allow':
      return false;
    case 'warn':
      run.warn(`[${policy.name}] ${why}; the policy was not evaluated`);
      return false;
    case 'deny':
      run.violate(policy, 'parameterSelection', policy.parameterSets
        ? `no parameters were found for ${policy.kind} "${policy.name}" and onParameterSelectionNoMatch is deny`
        : `no parameterSelection entry of ${policy.kind} "${policy.name}" matched and onParameterSelectionNoMatch is deny`);
      return false;
    default:
      return true;
  }
}

/**
 * The policy's trace after matching and parameterSelection, built whole with its keys in reading order
 * (match, selection, parameters, rules); `parameters` is in it (and in `scope`) only when the rules should run.
 */
export function choose(policy: CompiledPolicy, scope: Scope, run: Run, explain: boolean): PolicyTrace {
  const { name, kind, enforcementAction } = policy;
  // A remembered outcome for this input's key (never while explaining: its trace lists every mismatch).
  const memo = explain ? undefined : policy.memo;
  const values = memo ? run.selectionKey(memo.key, scope.input) : undefined;
  const known = values ? memo!.recall(values) : undefined;
  let failed: SelectorNode | undefined;
  try {
    failed = known ? known.failed : policy.match.test(scope);
  } catch (error) {
    const trace: PolicyTrace = { policy: name, kind, enforcementAction, matched: false, error: (error as Error).message, rules: [] };
    stopped(error, policy, trace, run);
    run.fail(policy, 'MATCH_ERROR', `unable to match: ${trace.error}`);
    return trace;
  }
  if (failed) {
    if (values && !known) memo!.remember(values, { failed, matched: undefined });
    return { policy: name, kind, enforcementAction, matched: false, mismatch: mismatch(failed), rules: [] };
  }
  let variant: Variant = policy.base;
  let selection: SelectionTrace;
  const entries = policy.entries;
  let matched: CompiledEntry | readonly CompiledEntry[] | undefined;
  const mismatches: NonNullable<SelectionTrace['mismatches']> | undefined = explain ? [] : undefined;
  if (known) matched = known.matched;
  else if (entries.length > 0) {
    try {
      matched = policy.behavior === 'MatchFirst' ? firstEntry(policy, scope, mismatches) : allEntries(policy, scope, mismatches);
    } catch (error) {
      const trace: PolicyTrace = { policy: name, kind, enforcementAction, matched: true, error: (error as Error).message, rules: [] };
      stopped(error, policy, trace, run);
      run.fail(policy, 'MATCH_ERROR', `unable to match parameterSelection: ${trace.error}`);
      return trace;
    }
  }
  if (values && !known) memo!.remember(values, { failed: undefined, matched });
  if (entries.length === 0) {
    selection = policy.outcomes.noEntries;
  } else {
    const none = matched === undefined || (Array.isArray(matched) && matched.length === 0);
    if (mismatches) {
      const list = none ? [] : Array.isArray(matched) ? matched : [matched as CompiledEntry];
      selection = { behavior: policy.behavior, matched: list.map((e) => e.ref), outcome: none ? `no-match-${policy.onNoMatch}` : 'selected', mismatches };
    } else if (none) selection = policy.outcomes.noMatch;
    else if (!Array.isArray(matched)) selection = (matched as CompiledEntry).chosen;
    else selection = { behavior: policy.behavior, matched: matched.map((e) => e.ref), outcome: 'selected' };
    if (none) {
      if (!noMatch(policy, run, 'no parameterSelection entry matched')) return { policy: name, kind, enforcementAction, matched: true, selection, rules: [] };
    } else if (!Array.isArray(matched)) variant = (matched as CompiledEntry).variant;
    else variant = matched.length === 1 ? matched[0]!.variant : combine(policy, matched);
  }
  if (variant.error) {
    run.fail(policy, 'INVALID_PARAMETERS', `merged parameters are invalid: ${variant.error}`);
    return { policy: name, kind, enforcementAction, matched: true, selection, error: variant.error, rules: [] };
  }
  scope.parameters = variant.parameters;
  return { policy: name, kind, enforcementAction, matched: true, selection, parameters: variant.parameters, rules: [] };
}

/** MatchFirst: the first entry whose selector matches (`mismatches` records the ones before it). */
function firstEntry(policy: CompiledPolicy, scope: Scope, mismatches: NonNullable<SelectionTrace['mismatches']> | undefined): CompiledEntry | undefined {
  const entries = policy.entries;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    const failed = entry.match.test(scope);
    if (!failed) return entry;
    if (mismatches) mismatches.push({ ...entry.ref, ...mismatch(failed) });
  }
  return undefined;
}

/** MatchAny: every entry whose selector matches, in list order. */
function allEntries(policy: CompiledPolicy, scope: Scope, mismatches: NonNullable<SelectionTrace['mismatches']> | undefined): CompiledEntry[] {
  const out: CompiledEntry[] = [];
  for (const entry of policy.entries) {
    const failed = entry.match.test(scope);
    if (!failed) out.push(entry);
    else if (mismatches) mismatches.push({ ...entry.ref, ...mismatch(failed) });
  }
  return out;
}

/** MatchAny with several entries: merge them over spec.parameters in list order (cached per combination). */
function combine(policy: CompiledPolicy, matched: readonly CompiledEntry[]): Variant {
  const key = matched.map((e) => e.index).join(',');
  let variant = policy.anyCache.get(key);
  if (!variant) {
    let merged = policy.base.parameters as Record<string, unknown>;
    try {
      for (const e of matched) merged = mergeParameters(merged, e.parameters, policy.merge);
      merged = deepClone(merged);
      const issues = policy.template.validator ? policy.template.validator(merged) : [];
      variant = issues.length
        ? { parameters: deepFreeze(merged), error: issues.map((x) => `${x.path || '/'} ${x.message}`).join('; ') }
        : { parameters: deepFreeze(merged) };
    } catch (error) {
      variant = { parameters: policy.base.parameters, error: (error as Error).message };
    }
    if (policy.anyCache.size >= 1024) policy.anyCache.clear();
    policy.anyCache.set(key, variant);
  }
  return variant;
}
