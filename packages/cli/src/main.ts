/** `verdict <command>`: dispatch, `--help`, `--version`, and turning errors into one line and an exit code. */
import { didYouMean, VerdictError } from '@verdict/core';
import packageJson from '../package.json';
import { CliError, EXIT, styleFor, type Io } from './io.js';
import type { Command } from './commands/command.js';

/** Commands load on use, so `--help` and `--version` stay fast. */
const COMMANDS: ReadonlyArray<{ name: string; summary: string; load: () => Promise<Command> }> = [
  { name: 'test', summary: 'run *.verdict.yaml suites and report', load: async () => (await import('./commands/test.js')).testCommand },
  { name: 'eval', summary: 'evaluate one input and print the answer', load: async () => (await import('./commands/eval.js')).evalCommand },
  { name: 'explain', summary: 'evaluate one input and explain the decision', load: async () => (await import('./commands/explain.js')).explainCommand },
  { name: 'validate', summary: 'check and lint policy files', load: async () => (await import('./commands/validate.js')).validateCommand },
  { name: 'audit', summary: 'decide every manifest under paths; table, JSON, SARIF, PolicyReport or JUnit', load: async () => (await import('./commands/audit.js')).auditCommand },
  { name: 'diff', summary: 'which objects change decision between two versions of a policy set, and why', load: async () => (await import('./commands/diff.js')).diffCommand },
];

/**
 * Loads a command and the adapter packages that are installed (optional peers of the CLI). A
 * command whose own module needs a missing adapter says which package to install.
 */
async function loadCommand(command: (typeof COMMANDS)[number]): Promise<Command> {
  const { adapterPackages, loadInstalledAdapters } = await import('./policy/detect.js');
  await loadInstalledAdapters();
  try {
    return await command.load();
  } catch (error) {
    const { isMissing } = await import('@verdict/testing/internal');
    const missing = adapterPackages.find((name) => isMissing(error, name));
    if (missing) throw new CliError(`verdict ${command.name} needs ${missing}, which is not installed: add it next to @verdict/cli (npm install --save-dev ${missing})`);
    throw error;
  }
}

function version(): string {
  return packageJson.version;
}

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `Usage: verdict <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Run verdict <command> --help for a command's options.

Options:
  -h, --help     show this help
  -v, --version  print the version
`;
}

/**
 * Runs the `verdict` command line with `argv` (the arguments after the
 * program name) and resolves to the exit code: 0 success, 1 a test failed,
 * the input was denied or validate found problems, 2 usage or load errors.
 * Never throws: errors are written to `io.stderr` as `verdict: <message>`.
 */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    io.stdout.write(usage());
    return name === undefined ? EXIT.USAGE : EXIT.OK;
  }
  if (name === '-v' || name === '--version') {
    io.stdout.write(`${version()}\n`);
    return EXIT.OK;
  }
  const command = COMMANDS.find((c) => c.name === name);
  const s = styleFor(io);
  const fail = (message: string, exit: number) => {
    io.stderr.write(message.split('\n').map((line) => `${s.bad('verdict:')} ${line}\n`).join(''));
    return exit;
  };
  if (!command) return fail(`unknown command "${name}"${didYouMean(name, COMMANDS.map((c) => c.name))} (commands: ${COMMANDS.map((c) => c.name).join(', ')}); see verdict --help`, EXIT.USAGE);
  try {
    return await (await loadCommand(command)).run(rest, io);
  } catch (error) {
    if (error instanceof CliError) return fail(error.message, error.exit);
    if (error instanceof VerdictError) return fail(error.message, EXIT.USAGE);
    return fail(`internal error: ${(error as Error)?.stack ?? String(error)}`, EXIT.USAGE);
  }
}
