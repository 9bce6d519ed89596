/**
 * Error codes carried by every {@link VerdictError}. Each has a docs page
 * under `docs/errors/`.
 */
export type VerdictErrorCode =
  /** Policy documents failed to load; `problems` lists every reason. */
  | 'POLICY_LOAD'
  /** A label selector (structured or kubectl string form) is invalid. */
  | 'INVALID_SELECTOR'
  /** An input given to `evaluate` or an adapter is not what it expects. */
  | 'INVALID_INPUT'
  /** A key such as `__proto__`, `constructor` or `prototype` was refused. */
  | 'FORBIDDEN_KEY'
  /** Parameters could not be merged (bad merge rule, conflicting shapes). */
  | 'INVALID_MERGE'
  /** A rule, template or patch failed while evaluating an input. */
  | 'EVALUATION'
  /** An input or document exceeds a configured size limit. */
  | 'TOO_LARGE'
  /** A glob or regular expression cannot be compiled, or cannot run in linear time (`PatternError`). */
  | 'INVALID_PATTERN'
  /** A bug or an unexpected condition in verdict itself. */
  | 'INTERNAL';

/** Codes of the individual problems a {@link PolicyLoadError} lists. */
export type ProblemCode =
  | 'YAML_SYNTAX'
  | 'NOT_A_DOCUMENT'
  | 'SCHEMA'
  | 'UNSUPPORTED'
  | 'UNKNOWN_KIND'
  | 'DUPLICATE'
  | 'FORBIDDEN_KEY'
  | 'INVALID_MATCH'
  | 'INVALID_SELECTOR'
  | 'INVALID_PARAMETERS'
  | 'UNKNOWN_PARAMETER'
  | 'UNKNOWN_INPUT_PATH'
  | 'INVALID_RULE'
  | 'INVALID_TEMPLATE'
  | 'INVALID_PATCH'
  | 'INVALID_MERGE'
  | 'TOO_LARGE';

/** One reason a set of policy documents was rejected. */
export interface Problem {
  code: ProblemCode;
  /** Index of the document in the loaded list (0-based). */
  document: number;
  /** `Kind/name` of the document when it has them. */
  name?: string;
  /** JSON pointer inside the document (`''` for the whole document). */
  path: string;
  message: string;
  /** File name or other source label, when the document came from {@link parsePolicyDocuments}. */
  source?: string;
  /** 1-based line and column of `path` in the source text, when known. */
  line?: number;
  column?: number;
}

/**
 * The base class of every error verdict throws. Adapters extend it with their
 * own code unions (`class AdmissionError extends VerdictError<AdmissionErrorCode>`).
 */
export class VerdictError<C extends string = VerdictErrorCode> extends Error {
  override readonly name: string = 'VerdictError';
  readonly code: C;
  /** JSON pointer to the offending place (in a document, an input or parameters). */
  readonly path: string;

  constructor(code: C, message: string, options: { path?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.path = options.path ?? '';
  }

  /** A stable, JSON-serialisable form: `{code, message, path}`. */
  toJSON(): { code: C; message: string; path: string } {
    return { code: this.code, message: this.message, path: this.path };
  }

  static forbiddenKey(key: string, path: string): VerdictError {
    return verdictError('FORBIDDEN_KEY', `key "${key}" at ${path || '/'} is not allowed: it could change object prototypes`, path);
  }

  static invalidInput(message: string, path = ''): VerdictError {
    return verdictError('INVALID_INPUT', message, path);
  }
}

/**
 * Static factories build through module functions on purpose: a class body
 * that names its own class is bundled as `class _VerdictError`, and Node then
 * prints an uncaught error as `_VerdictError: …` instead of its name.
 */
function verdictError(code: VerdictErrorCode, message: string, path: string): VerdictError {
  return new VerdictError<VerdictErrorCode>(code, message, { path });
}

/** Thrown by `compilePolicies` and `parsePolicyDocuments`: the whole set is rejected. */
export class PolicyLoadError extends VerdictError<'POLICY_LOAD'> {
  override readonly name = 'PolicyLoadError';
  readonly problems: readonly Problem[];

  constructor(problems: readonly Problem[]) {
    super('POLICY_LOAD', summarise(problems));
    this.problems = problems;
  }

  override toJSON(): { code: 'POLICY_LOAD'; message: string; path: string; problems: Problem[] } {
    return { ...super.toJSON(), problems: [...this.problems] };
  }
}

/** Thrown for an invalid label selector; `position` is the 0-based offset in string input. */
export class SelectorError extends VerdictError<'INVALID_SELECTOR'> {
  override readonly name = 'SelectorError';
  readonly position: number | undefined;

  constructor(message: string, options: { path?: string; position?: number } = {}) {
    super('INVALID_SELECTOR', message, { path: options.path ?? '' });
    this.position = options.position;
  }
}

/**
 * Formats one problem as a single readable line: `policies.yaml:12:5 (Kind/name) at /spec/…: message`,
 * `line 12:5 (…)` for text parsed without a `source`, `document 2 (…)` for documents built in code.
 */
export function formatProblem(problem: Problem): string {
  const position = problem.line ? `${problem.line}:${problem.column ?? 1}` : '';
  const where = problem.source
    ? `${problem.source}${position ? `:${position}` : ''}`
    : position ? `line ${position}` : `document ${problem.document}`;
  const name = problem.name ? ` (${problem.name})` : '';
  const at = problem.path ? ` at ${problem.path}` : '';
  return `${where}${name}${at}: ${problem.message}`;
}

function summarise(problems: readonly Problem[]): string {
  const head = problems.length === 1 ? '1 problem in policy documents' : `${problems.length} problems in policy documents`;
  const lines = problems.slice(0, 20).map((p) => `  - ${formatProblem(p)}`);
  if (problems.length > 20) lines.push(`  - … and ${problems.length - 20} more`);
  return `${head}:\n${lines.join('\n')}`;
}

/** Normalises anything thrown into a {@link VerdictError} (the original is kept as `cause`). */
export function toVerdictError(value: unknown, code: VerdictErrorCode = 'INTERNAL'): VerdictError<string> {
  if (value instanceof VerdictError) return value as VerdictError<string>;
  const message = value instanceof Error ? value.message : typeof value === 'string' ? value : 'unknown error';
  return new VerdictError<string>(code, message, { cause: value });
}
