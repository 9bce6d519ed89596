/**
 * The resource an answer's patch makes: a decision's `mutated` target, or the
 * patch applied (RFC 6902, by fast-json-patch) to the object the answer was
 * for, compared whole with the expected resource.
 */
import jsonpatch, { type Operation } from 'fast-json-patch';
import { relevantTrace, type CheckOptions, type CheckResult } from './checks.js';
import { answerName, type Outcome } from './outcome.js';
import { deepEqual } from './text.js';

/** The patched resource, or why it cannot be known. */
function patchedOf(outcome: Outcome, original: unknown): { resource: unknown } | { reason: string } {
  const ops = outcome.patch ?? [];
  if (outcome.decision && ops.length > 0 && outcome.decision.mutated !== undefined) return { resource: outcome.decision.mutated };
  if (original === undefined) {
    return ops.length === 0 && outcome.decision
      ? { reason: 'the decision patches nothing and does not carry the object: pass it as the second argument (toPatchResource(expected, object))' }
      : { reason: `the ${answerName(outcome)} carries only the patch: pass the object it was for as the second argument (toPatchResource(expected, object))` };
  }
  try {
    return { resource: jsonpatch.applyPatch(structuredClone(original), structuredClone(ops) as Operation[], true, false).newDocument };
  } catch (error) {
    return { reason: `the patch does not apply to the object given: ${(error as Error).message}` };
  }
}

/** The resource the answer's patch makes from `original` (a decision's own result when it has one) equals `expected`. */
export function checkPatchedResource(outcome: Outcome, expected: unknown, original: unknown, options: CheckOptions = {}): CheckResult {
  const equals = options.equals ?? deepEqual;
  const patched = patchedOf(outcome, original);
  const trace = relevantTrace(outcome, 'all', options);
  const result: CheckResult = 'reason' in patched
    ? { pass: false, expectation: 'patched resource', message: `cannot check the patched resource: ${patched.reason}`, negatedMessage: `cannot check the patched resource: ${patched.reason}`, expected, actual: undefined }
    : {
      pass: equals(patched.resource, expected),
      expectation: 'patched resource',
      message: 'expected the patch to make the expected resource, but it made another (- expected  + actual)',
      negatedMessage: 'expected the patch not to make this resource, but it did',
      expected,
      actual: patched.resource,
    };
  return trace === undefined ? result : { ...result, trace };
}
