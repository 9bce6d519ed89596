/** "Did you mean …?" hints come from core, so every package words them the same way. */
export { didYouMean } from '@verdict/core';

/** Describes a value's type for messages: `a list`, `null`, `nothing` (undefined), `a number`. */
export function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
