/**
 * Table-driven CEL cases (ported from Kubernetes' library tests): an expression and its value or error.
 * Each case also runs through the planner and through cel-js's own evaluation, which must agree.
 */
import { compileCel } from '@verdict/cel';
import { expect, it } from 'vitest';
import { bothWays, sameOutcome } from './cel-differential.js';

export type CelCase = readonly [name: string, expression: string, expected: unknown];

/** A case expecting a run-time error whose message matches. */
export const error = (pattern: RegExp) => ({ error: pattern });
/** A case expecting a load (compile) error whose message matches. */
export const compileError = (pattern: RegExp) => ({ compileError: pattern });

function isError(x: unknown): x is { error: RegExp } {
  return typeof x === 'object' && x !== null && 'error' in x;
}

function isCompileError(x: unknown): x is { compileError: RegExp } {
  return typeof x === 'object' && x !== null && 'compileError' in x;
}

/** One `it` per case: the expression compiles and evaluates to `expected` (JSON), or fails as described. */
export function celCases(cases: readonly CelCase[], variables: Record<string, unknown> = {}): void {
  it.each(cases)('%s: %s', (_name, expression, expected) => {
    if (isCompileError(expected)) {
      expect(() => compileCel(expression)).toThrow(expected.compileError);
      return;
    }
    const compiled = compileCel(expression);
    const both = bothWays(expression, variables, undefined, true);
    expect(both && sameOutcome(both.plan, both.library), 'the planner and cel-js agree').toBe(true);
    if (isError(expected)) expect(() => compiled.evaluate(variables)).toThrow(expected.error);
    else expect(compiled.evaluate(variables)).toEqual(expected);
  });
}
