/**
 * The CLI's only way out: stdout, stderr, colour. Colour is used only when
 * stdout is a TTY and `NO_COLOR` is unset or empty (no-color.org);
 * `FORCE_COLOR` (not `0`) turns it on without a TTY.
 */
import { VerdictError } from '@verdict/core';

/** Where a command writes, and the environment it reads. Tests pass their own. */
export interface Io {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Reads standard input (for `-i -`). */
  stdin?: () => Promise<string>;
}

/** Exit codes of every command. */
export const EXIT = Object.freeze({
  /** Tests passed, the input was allowed, the policies are valid. */
  OK: 0,
  /** A test failed, the input was denied, or validate found problems. */
  FAILED: 1,
  /** Wrong usage, a file that cannot be read, policies that do not load (eval, explain), no suites found. */
  USAGE: 2,
});

/** A one-line error for the user; `exit` is the process exit code (default 2). */
export class CliError extends VerdictError<'CLI_USAGE' | 'CLI_INPUT'> {
  override readonly name = 'CliError';
  readonly exit: number;

  constructor(message: string, options: { exit?: number; code?: 'CLI_USAGE' | 'CLI_INPUT' } = {}) {
    super(options.code ?? 'CLI_USAGE', message);
    this.exit = options.exit ?? EXIT.USAGE;
  }
}

/** Text styles; identity functions when colour is off. */
export interface Style {
  ok(text: string): string;
  bad(text: string): string;
  warn(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

function wrap(open: number, close: number) {
  return (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;
}

/** True when output should be coloured (see the module comment). */
export function colourEnabled(io: Io): boolean {
  const no = io.env['NO_COLOR'];
  if (no !== undefined && no !== '') return false;
  const force = io.env['FORCE_COLOR'];
  if (force !== undefined && force !== '' && force !== '0') return true;
  return io.stdout.isTTY === true;
}

/** The styles for `io`. */
export function styleFor(io: Io): Style {
  if (!colourEnabled(io)) {
    const plain = (text: string) => text;
    return { ok: plain, bad: plain, warn: plain, dim: plain, bold: plain };
  }
  return { ok: wrap(32, 39), bad: wrap(31, 39), warn: wrap(33, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
}

/** `io` bound to the process. A closed pipe (`verdict test | head`) ends the process quietly. */
export function processIo(): Io {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    stdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}
