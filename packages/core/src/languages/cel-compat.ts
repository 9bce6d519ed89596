/**
 * `compileCel` as core has always exported it: `@verdict/cel`'s, with its errors as core's
 * {@link VerdictError} (same code and message, the CEL error as `cause`), so callers that catch
 * `VerdictError` keep working. New code can import `compileCel` from `@verdict/cel` directly.
 */
import { CelError, compileCel as compile, type CompileCelOptions, type CompiledCel } from '@verdict/cel';
import { VerdictError, type VerdictErrorCode } from '../errors.js';

export type { CompileCelOptions, CompiledCel };

function asVerdict(error: unknown): unknown {
  return error instanceof CelError ? new VerdictError(error.code as VerdictErrorCode, error.message, { cause: error }) : error;
}

/** `f()`, its CEL error turned into core's. */
function verdictErrors<T>(f: () => T): T {
  try {
    return f();
  } catch (error) {
    throw asVerdict(error);
  }
}

/**
 * Compiles a CEL expression once (see `@verdict/cel`'s `compileCel`). Throws a `VerdictError` with code
 * `INVALID_INPUT` for a syntax or type error; `evaluate` throws one with code `EVALUATION` or `BUDGET_EXCEEDED`.
 */
export function compileCel(expression: string, options: CompileCelOptions = {}): CompiledCel {
  let compiled: CompiledCel;
  try {
    compiled = compile(expression, options);
  } catch (error) {
    throw asVerdict(error);
  }
  return {
    type: compiled.type,
    evaluate: (variables) => verdictErrors(() => compiled.evaluate(variables)),
    evaluateWithCost: (variables) => verdictErrors(() => compiled.evaluateWithCost(variables)),
  };
}
