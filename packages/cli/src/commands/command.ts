import type { Io } from '../io.js';

/** One `verdict` sub-command. */
export interface Command {
  name: string;
  /** The full `--help` text. */
  help: string;
  /** Runs with the arguments after the command name; resolves to the exit code. Throws `CliError` for one-line errors. */
  run(argv: readonly string[], io: Io): Promise<number>;
}
