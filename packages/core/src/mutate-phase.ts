/**
 * The mutation phase: every active policy's mutate rules in policy order on a
 * copy-on-write view of the input, each rule atomic. A rule's patch is written
 * (templated operations) or computed (a CEL expression turned into operations
 * by its patch type). Policies with `reinvocationPolicy: IfNeeded` run once
 * more when a later policy changed the target after them, as the Kubernetes
 * API server reinvokes admission plugins; before each run that follows a
 * change, the policy's matchConditions are evaluated again on the object as it
 * is then.
 */
import { BudgetExceeded } from './budget.js';
import { truthy } from './logic/scope.js';
import { CowDocument, PatchTestFailed, type PatchOperation } from './mutate.js';
import { passBudget, resolverFor, type Active, type Run } from './phases.js';
import type { CompiledMutate } from './template-unit.js';
import type { RuleTrace } from './types.js';
import { toPointer } from './util/object.js';

interface Pass {
  doc: CowDocument | undefined;
  readonly patch: PatchOperation[];
  readonly input: Record<string, unknown>;
  readonly target: readonly string[];
  readonly run: Run;
  /** Operations emitted so far that change the target (every kind but `test`). */
  changes: number;
}

/** Applies every active policy's mutate rules in order (reinvoking `IfNeeded` policies once); each rule is atomic. */
export function mutatePhase(active: readonly Active[], input: Record<string, unknown>, target: readonly string[], run: Run): { doc: CowDocument | undefined; patch: PatchOperation[] } {
  const pass: Pass = { doc: undefined, patch: [], input, target, run, changes: 0 };
  /** `IfNeeded` policies, with the change count after their run: reinvoked when a later policy changed more. */
  const reinvocable: Array<{ a: Active; after: number }> = [];
  for (const a of active) {
    if (a.policy.template.mutate.length === 0) continue;
    const before = pass.changes;
    runPolicy(a, pass, before > 0);
    if (a.policy.template.reinvocation === 'IfNeeded') reinvocable.push({ a, after: pass.changes });
  }
  for (const { a, after } of reinvocable) if (pass.changes > after) runPolicy(a, pass, true, 'reinvoked: a later policy changed the object');
  return { doc: pass.doc, patch: pass.patch };
}

function runPolicy(a: Active, pass: Pass, changed: boolean, note?: string): void {
  if (changed && !stillMatches(a, pass)) return;
  for (const rule of a.policy.template.mutate) {
    a.scope.input = pass.doc ? pass.doc.root : pass.input;
    const entry: RuleTrace = { rule: rule.name, type: 'mutate', result: 'pass' };
    if (note) entry.message = note;
    a.trace.rules.push(entry);
    runRule(a, rule, entry, pass);
  }
}

/** After an earlier change: the policy's matchConditions on the object as it is now (false or an error: its rules do not run). */
function stillMatches(a: Active, pass: Pass): boolean {
  a.scope.input = pass.doc ? pass.doc.root : pass.input;
  for (const c of a.policy.template.matchConditions) {
    let ok: unknown;
    try {
      ok = c.test(undefined, a.scope);
    } catch (error) {
      if (error instanceof BudgetExceeded) throw error;
      pass.run.fail(a.policy, 'MATCH_ERROR', `matchCondition "${c.name}": ${(error as Error).message}`, { parameterSet: a.parameterSet });
      return false;
    }
    if (ok !== true) {
      for (const rule of a.policy.template.mutate) a.trace.rules.push({ rule: rule.name, type: 'mutate', result: 'skipped', message: `matchCondition "${c.name}" is false for the object as earlier mutations left it` });
      return false;
    }
  }
  return true;
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
      failed(error, ' was not applied');
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
      // A computed patch whose test fails is not applied (RFC 6902); the API server admits the object unchanged.
      entry.result = 'skipped';
      entry.message = `not applied: ${error.message}`;
      return;
    }
    failed(error, ' was not applied');
    return;
  }
  for (const op of emitted) {
    pass.patch.push(op);
    if (op.op !== 'test') pass.changes++;
  }
  (a.trace.patch ??= []).push(...emitted);
  if (emitted.length > 0) entry.patch = emitted;
}
