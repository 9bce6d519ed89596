/**
 * Reads of `parameters.<path>` that a rule makes, collected at compile time by
 * every rule language (json-logic here; CEL pushes its `params.x` reads into
 * the same list) and checked against the template's `parametersSchema`, so a
 * typo in a parameter name is a load error instead of a rule that reads
 * nothing and fails open.
 */

/** One read of a parameter by a rule, message or patch. */
export interface ParameterRead {
  /** Segments after `parameters` (`['limits', 'memory']` for `parameters.limits.memory`). */
  readonly path: readonly string[];
  /** JSON pointer, in the policy document, of the expression that reads it. */
  readonly at: string;
}

/** The read a root-scope path makes, when it starts with `parameters` and names something below it. */
export function parameterRead(segments: readonly string[], at: string): ParameterRead | undefined {
  return segments.length > 1 && segments[0] === 'parameters' ? { path: segments.slice(1), at } : undefined;
}

/**
 * The read of the input a root-scope path makes (anything but `parameters`
 * and `element`, which have rules of their own), for the load-time check
 * against an adapter's input shape (`CompileOptions.inputShape`).
 */
export function inputRead(segments: readonly string[], at: string): ParameterRead | undefined {
  return segments.length > 0 && segments[0] !== 'parameters' && segments[0] !== 'element' && segments[0] !== '' ? { path: segments, at } : undefined;
}
