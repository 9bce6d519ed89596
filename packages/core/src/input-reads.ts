/**
 * Checks the input paths a policy's rules and messages read against the shape
 * of the input its adapter builds (`CompileOptions.inputShape`): a path the
 * shape does not have is a load problem with a did-you-mean, where otherwise
 * the rule would read nothing and, negated, pass. The shape is a JSON Schema
 * subset read as `parametersSchema` is (`properties`, `items`,
 * `additionalProperties`, `$ref`); a part whose contents are open (a
 * Kubernetes object, a job's variables) says so with `additionalProperties: true`.
 */
import { suggestion, undeclaredReads } from './parameter-reads.js';
import { isPlainObject } from './util/object.js';

/** The shape of the input an adapter builds: a JSON Schema subset (see {@link CompileOptions.inputShape}). */
export type InputShape = Readonly<Record<string, unknown>>;

/** A read of a path the input shape does not have. */
export interface UnknownInputPath {
  /** JSON pointer of the reading expression or message. */
  at: string;
  /** What is read, what the shape has there, and a did-you-mean. */
  message: string;
}

/** A path some expression reads from the input: its segments, and the JSON pointer of the expression. */
export interface InputRead {
  /** The path's segments (`['job', 'image']`). */
  readonly path: readonly string[];
  /** JSON pointer of the reading expression or string. */
  readonly at: string;
}

/**
 * Checks reads of the input against its shape: one issue per read of a name
 * the shape does not have, with a did-you-mean. Core runs it on every policy
 * an adapter loads with `inputShape`; an adapter runs it on the strings of its
 * own that read the input (the CI adapter's `reason` parameter). Linear in the
 * reads' lengths.
 */
export function checkInputReads(shape: InputShape | undefined, reads: readonly InputRead[]): UnknownInputPath[] {
  if (!isPlainObject(shape)) return [];
  const what = typeof shape['title'] === 'string' ? shape['title'] : 'the input';
  const issues: UnknownInputPath[] = [];
  for (const { read, segment, above, known } of undeclaredReads(shape, reads)) {
    const under = above.length === 0 ? '' : ` under ${above.join('.')}`;
    const has = known.length ? ` (it has: ${known.join(', ')})` : '';
    issues.push({ at: read.at, message: `reads ${read.path.join('.')}, but ${what} has no "${segment}"${under}${suggestion(segment, known)}${has}` });
  }
  return issues;
}
