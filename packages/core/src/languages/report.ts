/**
 * The seam between core and its rule languages (json-logic in logic/, CEL from `@verdict/cel` in
 * cel-rule.ts and cel-context.ts): a language compiles an expression found at a JSON pointer of a
 * document into the closure every rule runs as (`Fn`, logic/scope.ts), spends from the evaluation's
 * meter while it runs, and reports load problems with their places through a {@link Report}.
 */
import type { ProblemCode } from '../errors.js';

/** Reports a load problem at a JSON pointer of the document being compiled. */
export type Report = (path: string, code: ProblemCode, message: string) => void;
