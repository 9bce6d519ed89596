/**
 * The mutation phase: every active policy's mutate rules in policy order on a
 * copy-on-write view of the input, each rule atomic. A rule's patch is written
 * (templated operations) or computed (a CEL expression turned into operations
 * by its patch type). As the API server's MutatingAdmissionPolicy dispatcher
 * (policy/mutating/dispatcher.go) runs them:
 * - a policy's matchConditions are evaluated at its turn, on the object as
 *   the policies before it left it (false: it does not run);
 * - policies with `reinvocationPolicy: IfNeeded` that ran are run once more,
 *   in order, when a mutation of the first pass was applied (the API server
 *   reinvokes the admission chain once, and then every reinvocable policy
 *   invoked before), each after its matchConditions on the object as it is
 *   then; not when a mutation failed the request.
 */
import { computedVariables } from './languages/cel-rule.js';
import { truthy } from './logic/scope.js';
import { CowDocument, PatchTestFailed, type PatchOperation } from './mutate.js';
import { evaluateConditions, matchConditions, passBudget, resolverFor, type Active, type Run } from './phases.js';
import type { CompiledMutate } from './template-unit.js';
import type { RuleTrace } from './types.js';
import { toPointer } from './util/object.js';

interface Pass {
  doc: CowDocument | undefined;
  readonly patch: PatchOperation[];
  readonly input: Record<string, unknown>;
  readonly target: readonly string[];
  readonly run: Run;
  /** Rules applied without an error so far (a `test` that did not hold included, as the API server counts it). */
  applied: number;
}

/** Applies every active policy's mutate rules in order (reinvoking `IfNeeded` policies once); each rule is atomic. */
export function mutatePhase(active: readonly Active[], input: Record<string, unknown>, target: readonly string[], run: Run): { doc: CowDocument | undefined; patch: PatchOperation[] } {
  const pass: Pass = { doc: undefined, patch: [], input, target, run, applied: 0 };
  /** `IfNeeded` policies that ran in the first pass. */
  let reinvocable: Active[] | undefined;
  const errors = run.errors.length;
  for (const a of active) {
    if (a.policy.template.mutate.length === 0) continue;
    if (!runPolicy(a, pass)) continue;
    if (a.policy.template.reinvocation === 'IfNeeded') (reinvocable ??= []).push(a);
  }
  if (reinvocable && pass.applied > 0 && !failedRequest(run, errors)) {
    for (const a of reinvocable) runPolicy(a, pass, 'reinvoked: a mutation was applied after it ran');
  }
  return { doc: pass.doc, patch: pass.patch };
}

/** An error recorded since `from` that denies (a failurePolicy Fail): the API server stops the chain there. */
function failedRequest(run: Run, from: number): boolean {
  for (let i = from; i < run.errors.length; i++) if (!run.errors[i]!.ignored) return true;
  return false;
}

/** Runs a policy's mutate rules after its matchConditions on the object as it is now; false when they did not hold. */
function runPolicy(a: Active, pass: Pass, note?: string): boolean {
  a.scope.input = inputOf(a, pass);
  if (note !== undefined) {
    if (!stillMatches(a, pass)) return false;
  } else if (a.deferred && !matchConditions(a, pass.run)) {
    // Not matched at its turn: its other rules (validations, annotations) do not run either.
    a.unmatched = true;
    return false;
  }
  const rules = a.policy.template.mutate;
  const start = a.policy.template.mutationUnit === 'policy' ? policyStart(a, pass) : undefined;
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i]!;
    a.scope.input = inputOf(a, pass);
    const entry: RuleTrace = { rule: rule.name, type: 'mutate', result: 'pass' };
    if (note) entry.message = note;
    a.trace.rules.push(entry);
    runRule(a, rule, entry, pass);
    if (start && entry.result === 'error') {
      undoPolicy(a, pass, start, rule.name);
      for (const later of rules.slice(i + 1)) a.trace.rules.push({ rule: later.name, type: 'mutate', result: 'skipped', message: `not evaluated: ${rule.name} of the policy failed` });
      break;
    }
  }
  // The variables its mutations computed (a later evaluation on another object may compute none).
  const variables = computedVariables(a.scope);
  if (variables) a.trace.variables = variables;
  return true;
}

interface PolicyStart {
  root: Record<string, unknown>;
  patch: number;
  applied: number;
  traced: number;
  rules: number;
}

/** Where a policy whose mutate rules apply together started (`mutationUnit: policy`). */
function policyStart(a: Active, pass: Pass): PolicyStart {
  const doc = (pass.doc ??= new CowDocument(pass.input, pass.target));
  return { root: doc.begin(), patch: pass.patch.length, applied: pass.applied, traced: a.trace.patch?.length ?? 0, rules: a.trace.rules.length };
}

/** Undoes every operation the policy applied in this run; its rules that had applied are traced as undone. */
function undoPolicy(a: Active, pass: Pass, start: PolicyStart, failed: string): void {
  pass.doc!.rollback(start.root);
  pass.patch.length = start.patch;
  pass.applied = start.applied;
  if (a.trace.patch) a.trace.patch.length = start.traced;
  for (const entry of a.trace.rules.slice(start.rules)) {
    if (entry.result !== 'pass') continue;
    entry.result = 'skipped';
    entry.message = `undone: ${failed} of the policy failed`;
    delete entry.patch;
  }
}

/** The input as the mutations left it, as the policy reads it. */
function inputOf(a: Active, pass: Pass): Record<string, unknown> {
  const input = pass.doc ? pass.doc.root : pass.input;
  return a.policy.view ? a.policy.view(input) : input;
}

/** On reinvocation: the policy's matchConditions on the object as it is now (false or an error: its rules do not run again). */
function stillMatches(a: Active, pass: Pass): boolean {
  const outcome = evaluateConditions(a);
  if (outcome.holds) return true;
  if (outcome.failed !== undefined) {
    if (a.policy.template.cel.context.profile?.matchConditionErrors !== 'skip') pass.run.fail(a.policy, 'MATCH_ERROR', outcome.failed, { parameterSet: a.parameterSet });
    return false;
  }
  const c = a.policy.template.matchConditions[outcome.index]!;
  for (const rule of a.policy.template.mutate) a.trace.rules.push({ rule: rule.name, type: 'mutate', result: 'skipped', message: `not reinvoked: matchCondition "${c.name}" is false for the object as the mutations left it` });
  return false;
}

function runRule(a: Active, rule: CompiledMutate, entry: RuleTrace, pass: Pass): void {
  const { run } = pass;
  const failed = (error: unknown, prefix: string) => {
    entry.result = 'error';
    entry.message = (error as Error).message;
    passBudget(error, a.policy, rule.name);
    run.fail(a.policy, 'RULE_ERROR', `mutate rule "${rule.name}"${prefix}: ${entry.message}`, { rule: rule.name, parameterSet: a.parameterSet });
  };
  try {
    if (rule.when && !truthy(rule.when(undefined, a.scope))) {
      entry.result = 'skipped';
      entry.message = 'when condition is false';
      return;
    }
  } catch (error) {
    failed(error, '');
    return;
  }
  const doc = (pass.doc ??= new CowDocument(pass.input, pass.target));
  const current = doc.current();
  if (current === null || typeof current !== 'object') {
    entry.result = 'skipped';
    entry.message = `nothing to mutate: ${toPointer(pass.target) || 'the input'} is ${current === null ? 'null' : 'missing'}`;
    return;
  }
  let computed: readonly PatchOperation[] | undefined;
  if (rule.computed) {
    try {
      computed = rule.computed.patchType(rule.computed.value(undefined, a.scope), current);
    } catch (error) {
      if (error instanceof PatchTestFailed) notApplied(entry, error, pass);
      else failed(error, ' was not applied');
      return;
    }
  }
  const saved = doc.begin();
  const emitted: PatchOperation[] = [];
  try {
    if (computed) for (const op of computed) doc.applyOperation(op, emitted, a.scope.meter, false);
    else {
      const resolve = resolverFor(a.scope);
      for (const op of rule.patch) doc.apply(op, resolve, emitted, a.scope.meter);
    }
  } catch (error) {
    doc.rollback(saved);
    if (computed && error instanceof PatchTestFailed) {
      notApplied(entry, error, pass);
      return;
    }
    failed(error, ' was not applied');
    return;
  }
  pass.applied++;
  for (const op of emitted) pass.patch.push(op);
  (a.trace.patch ??= []).push(...emitted);
  if (emitted.length > 0) entry.patch = emitted;
}

/** A computed patch whose test fails is not applied (RFC 6902); the API server admits the object unchanged, without an error. */
function notApplied(entry: RuleTrace, error: PatchTestFailed, pass: Pass): void {
  entry.result = 'skipped';
  entry.message = `not applied: ${error.message}`;
  pass.applied++;
}
