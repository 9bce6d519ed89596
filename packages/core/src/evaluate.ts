/**
 * `PolicySet.evaluate`: select the policies that apply (through the index),
 * choose their parameters (parameterSelection), apply mutations in policy
 * order on a copy-on-write view, then run validations on the result.
 * Evaluation is synchronous, deterministic and never throws.
 */
import type { CompiledEntry, CompiledPolicy, Variant } from './compile.js';
import { BudgetExceeded, CostMeter } from './budget.js';
import { lintPolicies, type LintFinding } from './lint.js';
import type { Scope } from './logic/scope.js';
import { mergeParameters } from './merge.js';
import type { CowDocument, PatchOperation } from './mutate.js';
import { mutatePhase } from './mutate-phase.js';
import { omittedOf, passBudget, Run, validatePhase, type Active, type RunLimits } from './phases.js';
import type { SelectorNode } from './selectors/node.js';
import type { PolicyIndex } from './selectors/policy-index.js';
import type { MatchDialect } from './selectors/types.js';
import type { Decision, DecisionError, DecisionErrorCode, EvaluateOptions, PolicyInfo, PolicyTrace, SelectionTrace } from './types.js';
import { deepClone, deepFreeze, describeType, isPlainObject, toPointer } from './util/object.js';

interface Settings {
  target: string[];
  dialects: readonly MatchDialect[];
  /** Units one evaluation may spend. */
  costBudget: number;
  limits: RunLimits;
}

function mismatch(node: SelectorNode) {
  return { at: node.at, selector: node.text };
}

/** An immutable, compiled set of policies. Create one with `compilePolicies` and reuse it. */
export class PolicySet {
  /** The loaded policies, in evaluation order. */
  readonly policies: readonly PolicyInfo[];

  /** @internal use `compilePolicies` */
  constructor(
    private readonly compiled: readonly CompiledPolicy[],
    private readonly index: PolicyIndex<CompiledPolicy>,
    private readonly settings: Settings,
  ) {
    this.policies = Object.freeze(compiled.map((p) => p.info));
  }

  /**
   * Static analysis: parameterSelection entries that can never be chosen and
   * matches that can never hold, with document paths (and lines for parsed text).
   */
  lint(): LintFinding[] {
    return lintPolicies(this.compiled);
  }

  /** JSON pointer of the part of the input that mutations patch. */
  get mutationTarget(): string {
    return toPointer(this.settings.target);
  }

  /** The match dialects this set was compiled with. */
  get dialects(): readonly MatchDialect[] {
    return this.settings.dialects;
  }

  /**
   * Evaluates `input` (an object: the adapter's input document) against every
   * policy that applies. Never throws: an invalid input or a failing rule is
   * reported in the decision (`errors`), and fails closed for deny-enforced policies.
   */
  evaluate(input: unknown, options?: EvaluateOptions): Decision {
    if (!isPlainObject(input)) {
      return errorDecision('INVALID_INPUT', `the input must be an object (got ${describeType(input)})`);
    }
    try {
      return this.run(input, options ?? {});
    } catch (error) {
      return errorDecision('INTERNAL', `internal error while evaluating: ${(error as Error).message}`);
    }
  }

  private run(input: Record<string, unknown>, options: EvaluateOptions): Decision {
    const explain = options.explain === true;
    const candidates = explain ? this.compiled : this.index.candidates(input);
    const meter = new CostMeter(this.settings.costBudget);
    const run = new Run(this.settings.limits, meter);
    const active: Active[] = [];
    let doc: CowDocument | undefined;
    let patch: PatchOperation[] = [];
    try {
      for (let c = 0; c < candidates.length; c++) {
        const runs = this.select(candidates[c]!, input, run, explain);
        if (runs === undefined) continue;
        if (Array.isArray(runs)) for (let r = 0; r < runs.length; r++) active.push(runs[r]!);
        else active.push(runs as Active);
      }
      if (options.mutate !== false) ({ doc, patch } = mutatePhase(active, input, this.settings.target, run));
      let finalInput = doc ? doc.root : input;
      if (doc && patch.length > 0 && options.refresh) finalInput = options.refresh(finalInput, doc.current());
      validatePhase(active, finalInput, run);
    } catch (error) {
      if (!(error instanceof BudgetExceeded)) throw error;
      return exceeded(run, error, { skipped: this.compiled.length - candidates.length, cost: meter.spent });
    }

    const decision: Decision = {
      allowed: run.allowed,
      violations: run.violations,
      warnings: run.warnings,
      errors: run.errors,
      patch,
      trace: run.trace,
      skipped: this.compiled.length - candidates.length,
      cost: meter.spent,
    };
    if (patch.length > 0 && doc) decision.mutated = doc.current();
    if (run.annotations.length > 0) decision.annotations = run.annotations;
    const omitted = omittedOf(run);
    if (omitted) decision.omitted = omitted;
    return decision;
  }

  /**
   * Matching, parameterSelection and matchConditions for one policy: the runs that apply, one per parameter set
   * (a single run is returned as it is, not in a list: no array per policy and review).
   */
  private select(policy: CompiledPolicy, input: Record<string, unknown>, run: Run, explain: boolean): Active | readonly Active[] | undefined {
    const scope: Scope = { input, parameters: policy.base.parameters, element: undefined, hasElement: false, overlay: true, meter: run.meter };
    // `rules` is added last so that a serialised trace reads: match, selection, parameters, rules, patch.
    const trace = { policy: policy.name, kind: policy.kind, enforcementAction: policy.enforcementAction, matched: false } as PolicyTrace;
    run.trace.push(trace);
    const active: Active = { policy, scope, trace };
    const runs = this.choose(active, run, explain);
    trace.rules = [];
    if (!runs) return undefined;
    if (!policy.parameterSets) return matchConditions(active, run) ? active : undefined;
    let sets: ReadonlyArray<Readonly<Record<string, unknown>>>;
    try {
      sets = policy.parameterSets(input);
    } catch (error) {
      if (error instanceof BudgetExceeded) throw error;
      trace.error = (error as Error).message;
      run.fail(policy, 'MATCH_ERROR', `unable to resolve parameters: ${trace.error}`);
      return undefined;
    }
    if (sets.length === 0) return noMatch(policy, run, 'no parameters were found for it') && matchConditions(active, run) ? active : undefined;
    if (sets.length === 1) {
      // One parameter set (the usual binding): this trace and scope, no copies.
      trace.parameters = sets[0]!;
      trace.parameterSet = 0;
      scope.parameters = sets[0]!;
      const one: Active = { policy, scope, trace, parameterSet: 0 };
      return matchConditions(one, run) ? one : undefined;
    }
    run.trace.pop();
    const out: Active[] = [];
    sets.forEach((parameters, i) => {
      const t: PolicyTrace = { ...trace, parameters, parameterSet: i, rules: [] };
      run.trace.push(t);
      const each: Active = { policy, scope: { ...scope, parameters }, trace: t, parameterSet: i };
      if (matchConditions(each, run)) out.push(each);
    });
    return out;
  }

  /** Fills the trace; true when the policy's rules should run (with `scope.parameters` set). */
  private choose({ policy, scope, trace }: Active, run: Run, explain: boolean): boolean {
    let failed: SelectorNode | undefined;
    try {
      failed = policy.match.test(scope);
    } catch (error) {
      trace.error = (error as Error).message;
      passBudget(error, policy);
      run.fail(policy, 'MATCH_ERROR', `unable to match: ${trace.error}`);
      return false;
    }
    if (failed) {
      trace.mismatch = mismatch(failed);
      return false;
    }
    trace.matched = true;
    let variant: Variant = policy.base;
    const entries = policy.entries;
    if (entries.length === 0) {
      trace.selection = policy.outcomes.noEntries;
    } else {
      let matched: CompiledEntry | readonly CompiledEntry[] | undefined;
      const mismatches: NonNullable<SelectionTrace['mismatches']> | undefined = explain ? [] : undefined;
      try {
        matched = policy.behavior === 'MatchFirst' ? this.firstEntry(policy, scope, mismatches) : this.allEntries(policy, scope, mismatches);
      } catch (error) {
        trace.error = (error as Error).message;
        passBudget(error, policy);
        run.fail(policy, 'MATCH_ERROR', `unable to match parameterSelection: ${trace.error}`);
        return false;
      }
      const none = matched === undefined || (Array.isArray(matched) && matched.length === 0);
      if (mismatches) {
        const list = none ? [] : Array.isArray(matched) ? matched : [matched as CompiledEntry];
        trace.selection = { behavior: policy.behavior, matched: list.map((e) => e.ref), outcome: none ? `no-match-${policy.onNoMatch}` : 'selected', mismatches };
      } else if (none) trace.selection = policy.outcomes.noMatch;
      else if (!Array.isArray(matched)) trace.selection = (matched as CompiledEntry).chosen;
      else trace.selection = { behavior: policy.behavior, matched: matched.map((e) => e.ref), outcome: 'selected' };
      if (none) {
        if (!noMatch(policy, run, 'no parameterSelection entry matched')) return false;
      } else if (!Array.isArray(matched)) variant = (matched as CompiledEntry).variant;
      else variant = matched.length === 1 ? matched[0]!.variant : this.combine(policy, matched);
    }
    if (variant.error) {
      trace.error = variant.error;
      run.fail(policy, 'INVALID_PARAMETERS', `merged parameters are invalid: ${variant.error}`);
      return false;
    }
    trace.parameters = variant.parameters;
    scope.parameters = variant.parameters;
    return true;
  }

  /** MatchFirst: the first entry whose selector matches (`mismatches` records the ones before it). */
  private firstEntry(policy: CompiledPolicy, scope: Scope, mismatches: NonNullable<SelectionTrace['mismatches']> | undefined): CompiledEntry | undefined {
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
  private allEntries(policy: CompiledPolicy, scope: Scope, mismatches: NonNullable<SelectionTrace['mismatches']> | undefined): CompiledEntry[] {
    const out: CompiledEntry[] = [];
    for (const entry of policy.entries) {
      const failed = entry.match.test(scope);
      if (!failed) out.push(entry);
      else if (mismatches) mismatches.push({ ...entry.ref, ...mismatch(failed) });
    }
    return out;
  }

  /** MatchAny with several entries: merge them over spec.parameters in list order (cached per combination). */
  private combine(policy: CompiledPolicy, matched: readonly CompiledEntry[]): Variant {
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
}

/**
 * `onParameterSelectionNoMatch` when no parameters apply (no parameterSelection entry matched, or an
 * evaluation-time resolver found none); true when the policy proceeds with `spec.parameters`.
 */
function noMatch(policy: CompiledPolicy, run: Run, why: string): boolean {
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
 * CEL `spec.matchConditions`, as the API server evaluates them: any false → not matched (trace), even when
 * another one failed; all true → the policy applies; an error and none false → the policy's failurePolicy.
 */
function matchConditions(a: Active, run: Run): boolean {
  const conditions = a.policy.template.matchConditions;
  let failed: string | undefined;
  for (let i = 0; i < conditions.length; i++) {
    const c = conditions[i]!;
    let ok: unknown;
    try {
      ok = c.test(undefined, a.scope);
    } catch (error) {
      if (error instanceof BudgetExceeded) throw error;
      failed ??= `matchCondition "${c.name}": ${(error as Error).message}`;
      continue;
    }
    if (ok !== true) {
      a.trace.matched = false;
      a.trace.mismatch = { at: `/spec/matchConditions/${i}`, selector: `matchCondition "${c.name}": ${c.expression}` };
      return false;
    }
  }
  if (failed === undefined) return true;
  if (a.policy.template.cel.context.profile?.matchConditionErrors === 'skip') {
    a.trace.matched = false;
    a.trace.mismatch = { at: '/spec/matchConditions', selector: `${failed} (a matchCondition error skips the policy)` };
    return false;
  }
  a.trace.error = failed;
  run.fail(a.policy, 'MATCH_ERROR', failed, { parameterSet: a.parameterSet });
  return false;
}

/** The decision of an evaluation stopped by its budget: what was found so far, not allowed, no patch. */
function exceeded(run: Run, error: BudgetExceeded, counts: { skipped: number; cost: number }): Decision {
  const where = error.policy ? ` in ${error.rule === undefined ? 'the match' : `rule "${error.rule}"`} of ${error.policy.kind} "${error.policy.name}"` : '';
  const e: DecisionError = {
    code: 'BUDGET_EXCEEDED',
    message: `evaluation stopped${where}: it exceeded the cost budget of ${error.limit} units (the input is too large or too deep for these policies; raise costBudget at compilePolicies if it is legitimate)`,
  };
  if (error.policy) {
    e.policy = error.policy.name;
    e.kind = error.policy.kind;
  }
  if (error.rule !== undefined) e.rule = error.rule;
  run.errors.push(e);
  const decision: Decision = { allowed: false, violations: run.violations, warnings: run.warnings, errors: run.errors, patch: [], trace: run.trace, ...counts };
  const omitted = omittedOf(run);
  if (omitted) decision.omitted = omitted;
  return decision;
}

function errorDecision(code: DecisionErrorCode, message: string): Decision {
  return { allowed: false, violations: [], warnings: [], errors: [{ code, message }], patch: [], trace: [], skipped: 0 };
}
