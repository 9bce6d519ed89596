import { CelError } from './errors.js';

/** A syntax, type or environment error in a CEL expression; `offset` is 0-based in the expression. */
export class CelCompileError extends CelError<'INVALID_INPUT'> {
  override readonly name = 'CelCompileError';
  constructor(message: string, readonly offset: number | undefined) {
    super('INVALID_INPUT', message);
  }
}
