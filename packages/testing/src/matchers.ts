/**
 * The vitest matchers as plain functions over an answer (a core Decision, an
 * AdmissionReview, a CI job response or a permission answer). Register them
 * with `import '@verdict/testing/vitest'`, or pass {@link verdictMatchers}
 * to `expect.extend` yourself.
 */
import { checkAllowed, checkDenied, checkWarnings, type CheckResult } from './checks.js';
import { checkParameters, checkPatch, type PatchExpectation } from './checks-data.js';
import { checkPatchedResource } from './checks-resource.js';
import { toOutcome } from './outcome.js';
import { indent, type TextExpectation } from './text.js';

/** What vitest hands a matcher as `this` (the part the matchers use). */
export interface MatcherContext {
  isNot: boolean;
  equals(a: unknown, b: unknown): boolean;
}

/** What a matcher returns to vitest. */
export interface MatcherResult {
  pass: boolean;
  message: () => string;
  expected?: unknown;
  actual?: unknown;
}

/** The failure text: the check's message, then the part of the trace that explains it. */
export function failureText(result: CheckResult, negated: boolean): string {
  const head = negated ? result.negatedMessage : result.message;
  return result.trace ? `${head}\n\ntrace:\n${indent(result.trace)}` : head;
}

function report(context: MatcherContext, result: CheckResult, diff = false): MatcherResult {
  const out: MatcherResult = { pass: result.pass, message: () => failureText(result, context.isNot) };
  if (diff) {
    out.expected = result.expected;
    out.actual = result.actual;
  }
  return out;
}

/** Matcher implementations; `this` is vitest's matcher context. */
export const verdictMatchers = {
  /** Passes when the answer allows (a decision or admission `allowed`, a job `accepted`, a permission granted). */
  toBeAllowed(this: MatcherContext, received: unknown): MatcherResult {
    return report(this, checkAllowed(toOutcome(received), true));
  },
  /** Passes when the answer denies and, with `message`, one denial message contains it (string) or matches it (RegExp). */
  toBeDenied(this: MatcherContext, received: unknown, message?: TextExpectation): MatcherResult {
    return report(this, checkDenied(toOutcome(received), message));
  },
  /** Passes when the answer carries a warning and, with `message`, one warning contains or matches it. */
  toWarn(this: MatcherContext, received: unknown, message?: TextExpectation): MatcherResult {
    return report(this, checkWarnings(toOutcome(received), message === undefined ? true : message));
  },
  /**
   * Passes when the patch has an operation at `path` (a JSON pointer relative
   * to the mutation target: the object for admission) and, when `value` is
   * given, sets that value there (asymmetric matchers work).
   */
  toPatch(this: MatcherContext, received: unknown, path: string, ...value: [] | [unknown]): MatcherResult {
    const expected: PatchExpectation = value.length ? { path, value: value[0] } : { path };
    return report(this, checkPatch(toOutcome(received), [expected], { equals: (a, b) => this.equals(a, b) }));
  },
  /**
   * Passes when the answer's patch turns `original` (the object the answer was for) into `expected`, whole
   * (asymmetric matchers work). A decision that patched knows its result: `original` may then be left out.
   */
  toPatchResource(this: MatcherContext, received: unknown, expected: unknown, original?: unknown): MatcherResult {
    return report(this, checkPatchedResource(toOutcome(received), expected, original, { equals: (a, b) => this.equals(a, b) }), true);
  },
  /**
   * Passes when each named policy (`name` or `Kind/name`) ran with exactly
   * these merged parameters (`null`: its rules did not run). Either
   * `toSelectParameters({policy: parameters, ...})` or `toSelectParameters(policy, parameters)`.
   */
  toSelectParameters(this: MatcherContext, received: unknown, expected: Record<string, unknown> | string, parameters?: unknown): MatcherResult {
    const map = typeof expected === 'string' ? { [expected]: parameters } : expected;
    return report(this, checkParameters(toOutcome(received), map, { equals: (a, b) => this.equals(a, b) }), true);
  },
};

/** The matchers' types, for `declare module 'vitest'` (done for you by `@verdict/testing/vitest`). */
export interface VerdictMatchers<R = unknown> {
  /** The answer allows (decision/admission `allowed`, job `accepted`, permission granted). */
  toBeAllowed(): R;
  /** The answer denies; with `message`, a denial message contains (string) or matches (RegExp) it. */
  toBeDenied(message?: string | RegExp): R;
  /** The answer warns; with `message`, a warning contains or matches it. */
  toWarn(message?: string | RegExp): R;
  /** The patch has an operation at `path` (JSON pointer), setting `value` when given. */
  toPatch(path: string, value?: unknown): R;
  /** The patch turns `original` (optional for a decision that patched) into `expected`, whole. */
  toPatchResource(expected: unknown, original?: unknown): R;
  /** The named policies ran with these merged parameters (`{policy: parameters}`; `null`: did not run). */
  toSelectParameters(expected: Record<string, unknown>): R;
  /** The policy ran with these merged parameters (`null`: did not run). */
  toSelectParameters(policy: string, parameters: unknown): R;
}
