import { VerdictError } from '@verdict/core';

/** Codes of {@link SuiteError}. */
export type SuiteErrorCode =
  /** A path given to the runner does not exist, or holds no `*.verdict.yaml` file. */
  | 'SUITE_NOT_FOUND'
  /** A suite file is not valid YAML or does not follow the suite schema; `problems` lists every reason. */
  | 'SUITE_INVALID'
  /** An input or policy file a suite names cannot be read or parsed. */
  | 'FILE_UNREADABLE'
  /** An input needs an adapter package (`@verdict/kubernetes`, `@verdict/ci`, `@verdict/spinnaker`) that is not installed. */
  | 'ADAPTER_NOT_INSTALLED';

/** One reason a suite file was rejected, with its place in the file. */
export interface SuiteProblem {
  /** The file, as given to the runner (relative paths stay relative). */
  file: string;
  /** JSON pointer in the suite document (`''` for the whole document). */
  path: string;
  message: string;
  /** 1-based line and column, when known. */
  line?: number;
  column?: number;
}

/** Formats a problem as `file:line:col at /path: message`. */
export function formatSuiteProblem(problem: SuiteProblem): string {
  const where = problem.line ? `${problem.file}:${problem.line}:${problem.column ?? 1}` : problem.file;
  return `${where}${problem.path ? ` at ${problem.path}` : ''}: ${problem.message}`;
}

/** Thrown by the suite runner's loading functions and by evaluators that cannot start. */
export class SuiteError extends VerdictError<SuiteErrorCode> {
  override readonly name = 'SuiteError';
  readonly problems: readonly SuiteProblem[];

  constructor(code: SuiteErrorCode, message: string, options: { problems?: readonly SuiteProblem[]; path?: string; cause?: unknown } = {}) {
    super(code, message, options);
    this.problems = options.problems ?? [];
  }

  static invalid(problems: readonly SuiteProblem[]): SuiteError {
    return invalidSuite(problems);
  }
}

/** Outside the class body, so the bundle keeps the class's name (see core's `VerdictError` factories). */
function invalidSuite(problems: readonly SuiteProblem[]): SuiteError {
  const head = problems.length === 1 ? formatSuiteProblem(problems[0]!) : `${problems.length} problems in suite ${problems[0]?.file ?? ''}`;
  return new SuiteError('SUITE_INVALID', head, { problems, path: problems[0]?.path ?? '' });
}
