/**
 * Assertions on data an answer carries: patches, the parameters a policy
 * selected, CI tag mutations and runner filtering.
 */
import type { PatchOperation } from '@verdict/core';
import { relevantTrace, type CheckOptions, type CheckResult } from './checks.js';
import { answerName, type Outcome } from './outcome.js';
import { policyKeyMatches } from './trace.js';
import { bullets, deepEqual, inline } from './text.js';

/** One expected patch operation: `path` (JSON pointer, relative to the mutation target) and optionally `value` and `op`. */
export interface PatchExpectation {
  path: string;
  value?: unknown;
  op?: PatchOperation['op'];
}

function unescape(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The value an operation list sets at `path`: an exact op, or inside the value of an ancestor `add`/`replace`. */
function findPatch(ops: readonly PatchOperation[], expected: PatchExpectation, equals: (a: unknown, b: unknown) => boolean): boolean {
  const hasValue = 'value' in expected;
  for (const op of ops) {
    if (expected.op && op.op !== expected.op) continue;
    if (op.path === expected.path) {
      if (!hasValue) return true;
      if ('value' in op && equals(op.value, expected.value)) return true;
      continue;
    }
    if ((op.op === 'add' || op.op === 'replace') && expected.path.startsWith(`${op.path}/`)) {
      let cur: unknown = op.value;
      for (const seg of expected.path.slice(op.path.length + 1).split('/').map(unescape)) {
        cur = cur !== null && typeof cur === 'object' && Object.prototype.hasOwnProperty.call(cur, seg) ? (cur as Record<string, unknown>)[seg] : undefined;
      }
      if (cur !== undefined && (!hasValue || equals(cur, expected.value))) return true;
    }
  }
  return false;
}

function describePatch(e: PatchExpectation): string {
  return `${e.op ?? 'an operation'} at ${e.path}${'value' in e ? ` setting ${inline(e.value, 120)}` : ''}`;
}

function describeOps(ops: readonly PatchOperation[]): string {
  return bullets(ops.map((op) => `${op.op} ${op.path}${'value' in op ? ` = ${inline(op.value, 120)}` : ''}${'from' in op ? ` from ${op.from}` : ''}`));
}

/** Each expected operation is in the patch; `false`: there is no patch at all. */
/** Why an admission response may carry no patch at all. */
const VALIDATING_HINT = 'a validating webhook (the default, as createAdmissionWebhook) never patches; set kubernetes: {mutating: true} in the suite or the options';

export function checkPatch(outcome: Outcome, expected: false | readonly PatchExpectation[], options: CheckOptions = {}): CheckResult {
  const ops = outcome.patch ?? [];
  const equals = options.equals ?? deepEqual;
  const trace = relevantTrace(outcome, 'all', options);
  if (expected === false) {
    const result: CheckResult = {
      pass: ops.length === 0,
      expectation: 'no patch',
      message: `expected no patch, but the ${answerName(outcome)} patches:\n${describeOps(ops)}`,
      negatedMessage: 'expected a patch, but there was none',
      expected: [],
      actual: ops,
    };
    return trace === undefined ? result : { ...result, trace };
  }
  if (outcome.patch === undefined) {
    const none = `a ${answerName(outcome)} carries no patch`;
    const result: CheckResult = {
      pass: false, expectation: `patch ${expected.map((e) => e.path).join(', ')}`,
      message: `expected the patch to contain ${expected.map(describePatch).join(' and ')}, but ${none}`,
      negatedMessage: `expected the patch not to contain ${expected.map(describePatch).join(' and ')}, and ${none}`,
      expected: expected.map((e) => ({ ...e })), actual: undefined,
    };
    return trace === undefined ? result : { ...result, trace };
  }
  const missing = expected.filter((e) => !findPatch(ops, e, equals));
  const result: CheckResult = {
    pass: missing.length === 0,
    expectation: `patch ${expected.map((e) => e.path).join(', ')}`,
    message: `expected the patch to contain ${missing.map(describePatch).join(' and ')}, but it was:\n${describeOps(ops)}${ops.length === 0 && outcome.kind === 'admission' ? `\n${VALIDATING_HINT}` : ''}`,
    negatedMessage: `expected the patch not to contain ${expected.map(describePatch).join(' and ')}, but it was:\n${describeOps(ops)}`,
    expected: expected.map((e) => ({ ...e })),
    actual: ops,
  };
  return trace === undefined ? result : { ...result, trace };
}

/**
 * The merged parameters each named policy (`name` or `Kind/name`) ran with;
 * `null` means the policy's rules did not run (not matched, or skipped by
 * `onParameterSelectionNoMatch`). Needs the decision's trace.
 */
export function checkParameters(outcome: Outcome, expected: Readonly<Record<string, unknown>>, options: CheckOptions = {}): CheckResult {
  const keys = Object.keys(expected);
  const equals = options.equals ?? deepEqual;
  const decision = outcome.decision;
  if (!decision) {
    return {
      pass: false,
      expectation: `parameters of ${keys.join(', ')}`,
      message: `cannot check selected parameters: the ${answerName(outcome)} carries no trace (assert on the Decision, or run it in a suite, which keeps the decision)`,
      negatedMessage: `cannot check selected parameters: the ${answerName(outcome)} carries no trace`,
      expected,
      actual: undefined,
    };
  }
  const actual: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const key of keys) {
    const trace = decision.trace.find((t) => policyKeyMatches(t, key));
    const ran = trace?.matched && trace.parameters !== undefined && !trace.selection?.outcome.match(/^no-match-(allow|warn|deny)$/);
    actual[key] = ran ? trace.parameters : null;
    if (!trace) {
      const known = decision.trace.map((t) => t.policy);
      problems.push(`policy "${key}" is not in the trace${known.length ? ` (evaluated: ${known.join(', ')})` : ''}${decision.skipped ? `; ${decision.skipped} policies were ruled out by the selector index` : ''}`);
    } else if (!equals(actual[key], expected[key])) {
      problems.push(ran ? `policy "${key}" used ${inline(actual[key], 300)}, expected ${inline(expected[key], 300)}` : `policy "${key}" did not run its rules, expected parameters ${inline(expected[key], 300)}`);
    }
  }
  const result: CheckResult = {
    pass: problems.length === 0,
    expectation: `parameters of ${keys.join(', ')}`,
    message: `expected the selected parameters to be ${inline(expected, 300)}, but:\n${bullets(problems)}`,
    negatedMessage: `expected the selected parameters not to be ${inline(expected, 300)}, but they were`,
    expected,
    actual,
  };
  const trace = relevantTrace(outcome, keys, options);
  return trace === undefined ? result : { ...result, trace };
}

function sameSet(a: readonly unknown[] | undefined, b: readonly unknown[] | undefined): boolean {
  const x = [...(a ?? [])].map(String).sort();
  const y = [...(b ?? [])].map(String).sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** Tag mutations of a CI job response (`tags.add`, `tags.remove`; order does not matter, an omitted list is not checked). */
export function checkTags(outcome: Outcome, expected: { add?: readonly string[]; remove?: readonly string[] }): CheckResult {
  const actual = { add: outcome.ci?.tags?.add ?? [], remove: outcome.ci?.tags?.remove ?? [] };
  const pass = (expected.add === undefined || sameSet(expected.add, actual.add)) && (expected.remove === undefined || sameSet(expected.remove, actual.remove));
  return {
    pass,
    expectation: 'tags',
    message: `expected tags ${inline(expected)}, but the job response has ${inline(actual)}`,
    negatedMessage: `expected tags other than ${inline(expected)}`,
    expected,
    actual,
  };
}

/** Runner filtering of a CI job response (`runners.accepted_ids`, `runners.rejected_ids`; order does not matter). */
export function checkRunners(outcome: Outcome, expected: { accepted_ids?: readonly string[]; rejected_ids?: readonly string[] }): CheckResult {
  const actual = { accepted_ids: outcome.ci?.runners?.accepted_ids ?? [], rejected_ids: outcome.ci?.runners?.rejected_ids ?? [] };
  const pass = (expected.accepted_ids === undefined || sameSet(expected.accepted_ids, actual.accepted_ids))
    && (expected.rejected_ids === undefined || sameSet(expected.rejected_ids, actual.rejected_ids));
  return {
    pass,
    expectation: 'runners',
    message: `expected runners ${inline(expected)}, but the job response has ${inline(actual)}`,
    negatedMessage: `expected runners other than ${inline(expected)}`,
    expected,
    actual,
  };
}
