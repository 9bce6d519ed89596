import { VerdictError } from '../errors.js';

/**
 * A glob or regular expression verdict refuses to compile: invalid syntax,
 * a construct that cannot run in linear time (backreferences, lookaround,
 * `!(…)` extglobs), or a pattern over the size limits. In a policy it becomes
 * a load problem at the pattern's JSON pointer.
 */
export class PatternError extends VerdictError<'INVALID_PATTERN'> {
  override readonly name = 'PatternError';

  constructor(message: string) {
    super('INVALID_PATTERN', message);
  }
}
