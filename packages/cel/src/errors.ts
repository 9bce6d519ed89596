/**
 * The errors `@verdict/cel` throws. Every one is a {@link CelError} with a `code`, so a caller can branch
 * on the code without knowing the class.
 */

/** What went wrong: a syntax, type or environment error; a run-time error; a budget overrun; a refused pattern. */
export type CelErrorCode = 'INVALID_INPUT' | 'EVALUATION' | 'BUDGET_EXCEEDED' | 'INVALID_PATTERN';

/** The base class of every error `@verdict/cel` throws. */
export class CelError<C extends CelErrorCode = CelErrorCode> extends Error {
  override readonly name: string = 'CelError';

  constructor(readonly code: C, message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A regular expression RE2 refuses (syntax, or a construct that cannot run in linear time), or one over the size limit. */
export class RegexError extends CelError<'INVALID_PATTERN'> {
  override readonly name = 'RegexError';

  constructor(message: string) {
    super('INVALID_PATTERN', message);
  }
}

/** Thrown by a {@link CelBudget} once an evaluation has spent more than its limit. */
export class CelBudgetExceeded extends CelError<'BUDGET_EXCEEDED'> {
  override readonly name = 'CelBudgetExceeded';

  constructor(readonly limit: number) {
    super('BUDGET_EXCEEDED', `the evaluation exceeded its cost budget of ${limit} units`);
  }
}
