/**
 * `PolicySet.evaluate`: select the policies that apply (through the index),
 * choose their parameters (parameterSelection), apply mutations in policy
 * order on a copy-on-write view, then run validations on the result.
 * Evaluation is synchronous, deterministic and never throws.
 */
import type { CompiledPolicy } from './compile.js';
import { BudgetExceeded, CostMeter } from './budget.js';
import { lintPolicies, type LintFinding } from './lint.js';
import type { Scope } from './logic/scope.js';
import type { CowDocument, PatchOperation } from './mutate.js';
import { mutatePhase } from './mutate-phase.js';
import { matchConditions, omittedOf, Run, validatePhase, type Active, type RunLimits } from './phases.js';
import { choose, noMatch } from './selection.js';
import type { PolicyIndex } from './selectors/policy-index.js';
import { Provenance } from './provenance.js';
import type { Translation } from './translate.js';
import type { MatchDialect } from './selectors/types.js';
import type { Decision, DecisionError, DecisionErrorCode, EvaluateOptions, PolicyInfo, PolicyTrace } from './types.js';
import { describeType, isPlainObject, toPointer } from './util/object.js';

interface Settings {
  target: string[];
  dialects: readonly MatchDialect[];
  /** Units one evaluation may spend. */
  costBudget: number;
  limits: RunLimits;
  /** The translation of the load, when documents were translated (traces with `explain: true` use it). */
  translation?: Translation;
}

/** An immutable, compiled set of policies. Create one with `compilePolicies` and reuse it. */
export class PolicySet {
  /** The loaded policies, in evaluation order. */
  readonly policies: readonly PolicyInfo[];

  private provenance: Provenance | undefined;

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
    // Explaining a set with translated documents: each trace with its policy, to name the user's documents at the end.
    const explained: Array<[PolicyTrace, CompiledPolicy]> | undefined = explain && this.settings.translation ? [] : undefined;
    let doc: CowDocument | undefined;
    let patch: PatchOperation[] = [];
    const how = { explain, mutate: options.mutate !== false };
    try {
      for (let c = 0; c < candidates.length; c++) {
        const traced = explained ? run.trace.length : 0;
        const runs = this.select(candidates[c]!, input, run, how);
        if (explained) for (let t = traced; t < run.trace.length; t++) explained.push([run.trace[t]!, candidates[c]!]);
        if (runs === undefined) continue;
        if (Array.isArray(runs)) for (let r = 0; r < runs.length; r++) active.push(runs[r]!);
        else active.push(runs as Active);
      }
      if (options.mutate !== false) ({ doc, patch } = mutatePhase(active, input, this.settings.target, run));
      let finalInput = doc ? doc.root : input;
      if (doc && patch.length > 0 && options.refresh) finalInput = options.refresh(finalInput, doc.current());
      validatePhase(active, finalInput, run);
      if (explained) {
        this.provenance ??= new Provenance(this.settings.translation!);
        for (const [trace, policy] of explained) this.provenance.annotate(trace, policy);
      }
    } catch (error) {
      if (!(error instanceof BudgetExceeded)) throw error;
      return exceeded(run, error, { skipped: this.compiled.length - candidates.length, cost: meter.spent + meter.worked });
    }

    const decision: Decision = {
      allowed: run.allowed,
      violations: run.violations,
      warnings: run.warnings,
      errors: run.errors,
      patch,
      trace: run.trace,
      skipped: this.compiled.length - candidates.length,
      cost: meter.spent + meter.worked,
    };
    if (patch.length > 0 && doc) decision.mutated = doc.current();
    if (run.annotations) decision.annotations = run.annotations;
    const omitted = omittedOf(run);
    if (omitted) decision.omitted = omitted;
    return decision;
  }

  /**
   * Matching, parameterSelection and matchConditions for one policy: the runs that apply, one per parameter set
   * (a single run is returned as it is, not in a list: no array per policy and review). The matchConditions of a
   * policy that mutates are left to the mutation phase.
   */
  private select(policy: CompiledPolicy, input: Record<string, unknown>, run: Run, how: { explain: boolean; mutate: boolean }): Active | readonly Active[] | undefined {
    const scope: Scope = { input, parameters: policy.base.parameters, element: undefined, hasElement: false, overlay: true, meter: run.meter };
    const trace = choose(policy, scope, run, how.explain);
    // A policy that mutates meets its matchConditions at its turn in the mutation phase, on the object as it is then.
    const conditions = how.mutate && policy.template.mutate.length > 0 && policy.template.matchConditions.length > 0 ? deferred : matchConditions;
    run.trace.push(trace);
    // Only a policy whose parameters were chosen has them in its trace.
    if (trace.parameters === undefined) return undefined;
    if (policy.view) scope.input = policy.view(input);
    const active: Active = { policy, scope, trace };
    if (!policy.parameterSets) return conditions(active, run) ? active : undefined;
    let sets: ReadonlyArray<Readonly<Record<string, unknown>>>;
    try {
      sets = policy.parameterSets(input);
    } catch (error) {
      if (error instanceof BudgetExceeded) throw error;
      trace.error = (error as Error).message;
      run.fail(policy, 'MATCH_ERROR', `unable to resolve parameters: ${trace.error}`);
      return undefined;
    }
    if (sets.length === 0) return noMatch(policy, run, 'no parameters were found for it') && conditions(active, run) ? active : undefined;
    if (sets.length === 1) {
      // One parameter set (the usual binding): this trace and scope, no copies.
      trace.parameters = sets[0]!;
      trace.parameterSet = 0;
      scope.parameters = sets[0]!;
      const one: Active = { policy, scope, trace, parameterSet: 0 };
      return conditions(one, run) ? one : undefined;
    }
    run.trace.pop();
    const out: Active[] = [];
    sets.forEach((parameters, i) => {
      const t: PolicyTrace = { ...trace, parameters, parameterSet: i, rules: [] };
      run.trace.push(t);
      const each: Active = { policy, scope: { ...scope, parameters }, trace: t, parameterSet: i };
      if (conditions(each, run)) out.push(each);
    });
    return out;
  }

}

/** matchConditions left to the mutation phase: the run is kept, marked. */
function deferred(a: Active): boolean {
  a.deferred = true;
  return true;
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
