/** `verdict test [paths...]`: run suites, print one line per case, diffs for failures, the summary; JUnit on request. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  formatCaseFailure, runSuites, SuiteError, summaryLine, toJUnitXml, type CaseResult, type SuiteResult,
} from '@verdict/testing';
import { compileRegex, type LinearRegex } from '@verdict/core';
import { parse, str, type Options } from '../args.js';
import { CliError, EXIT, styleFor, type Io, type Style } from '../io.js';
import type { Command } from './command.js';

const options: Options = {
  junit: { type: 'string' },
  filter: { type: 'string', short: 't' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
};

const HELP = `Usage: verdict test [paths...] [options]

Finds *.verdict.yaml suites under the given files and directories (default: .),
and gator suites (test.gatekeeper.sh/v1alpha1: a file given by name, or
suite.yaml below a directory), runs every case, prints one line per case (a
diff and the trace for failures) and a summary line "N passed, N failed".

Options:
  --junit <file>       also write a JUnit XML report to <file>
  -t, --filter <text>  run only cases whose name (or "suite › case") contains <text>;
                       /pattern/ is a regular expression
  -q, --quiet          print only failing cases and the summary
  -h, --help           show this help

Exit codes: 0 all passed, 1 a case failed or a suite could not run,
2 usage error or no suite found.
`;

function filterOf(text: string | undefined): string | LinearRegex | undefined {
  if (text === undefined) return undefined;
  const m = /^\/(.*)\/([a-z]*)$/.exec(text);
  if (!m) return text;
  try {
    return compileRegex(m[1]!, m[2]);
  } catch (error) {
    throw new CliError(`--filter ${text} is not a valid regular expression: ${(error as Error).message}`);
  }
}

function indent(text: string, pad: string): string {
  return text.split('\n').map((l) => (l ? pad + l : l)).join('\n');
}

function caseLine(c: CaseResult, s: Style): string {
  const ms = c.durationMs >= 1 ? s.dim(` (${Math.round(c.durationMs)} ms)`) : '';
  switch (c.status) {
    case 'passed':
      return `  ${s.ok('✓')} ${c.name}${ms}`;
    case 'skipped':
      return `  ${s.dim('-')} ${s.dim(`${c.name} (skipped)`)}`;
    case 'failed':
      return `  ${s.bad('✗')} ${c.name}${ms}\n${indent(formatCaseFailure(c, s), '      ')}`;
    case 'error':
      return `  ${s.bad('!')} ${c.name}: ${s.bad('error')}: ${c.error ?? ''}`;
  }
}

async function run(argv: readonly string[], io: Io): Promise<number> {
  const parsed = parse('test', argv, options, true);
  if (parsed.values['help']) {
    io.stdout.write(HELP);
    return EXIT.OK;
  }
  const s = styleFor(io);
  const quiet = parsed.values['quiet'] === true;
  const out = (line: string) => io.stdout.write(`${line}\n`);
  const progress = io.stderr.isTTY === true && quiet;
  let total = 0;
  let done = 0;
  let header = '';
  let printed = '';
  const heading = () => {
    if (printed !== header) out(header);
    printed = header;
  };
  let report;
  try {
    const filter = filterOf(str(parsed, 'filter'));
    report = await runSuites(parsed.positionals, {
      cwd: io.cwd,
      ...(filter !== undefined ? { filter } : {}),
      onStart: (plan) => {
        total = plan.cases;
        if (!quiet) out(s.dim(`running ${plan.cases} case${plan.cases === 1 ? '' : 's'} from ${plan.suites} suite${plan.suites === 1 ? '' : 's'}\n`));
      },
      onSuite: (suite) => {
        header = `${s.bold(suite.file)}${suite.name !== suite.file ? ` ${s.dim(suite.name)}` : ''}`;
        if (!quiet) heading();
      },
      onCase: (c) => {
        done++;
        if (!quiet || c.status === 'failed' || c.status === 'error') {
          if (progress) io.stderr.write('\r\u001b[K');
          heading();
          out(caseLine(c, s));
        }
        if (progress) io.stderr.write(`\r${s.dim(`${done}/${total} cases`)}`);
      },
      onSuiteEnd: (suite: SuiteResult) => {
        for (const warning of suite.warnings ?? []) {
          heading();
          out(`  ${s.warn('⚠')} ${s.warn(warning)}`);
        }
        if (suite.status === 'error') {
          heading();
          out(`  ${s.bad('!')} ${s.bad('the suite could not run')}:\n${indent((suite.error ?? []).join('\n'), '      ')}`);
        }
        if (!quiet) out('');
      },
    });
  } catch (error) {
    if (error instanceof SuiteError || error instanceof CliError) throw new CliError(error.message);
    throw error;
  }
  if (progress) io.stderr.write('\r\u001b[K');
  const junit = str(parsed, 'junit');
  if (junit !== undefined) {
    const file = resolve(io.cwd, junit);
    try {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, toJUnitXml(report));
    } catch (error) {
      throw new CliError(`cannot write the JUnit report to ${junit}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  const errors = report.suites.filter((x) => x.status === 'error').length;
  if (errors) out(s.bad(`${errors} suite${errors === 1 ? '' : 's'} could not run`));
  const line = summaryLine(report);
  out(report.failed ? s.bad(line) : s.ok(line));
  return report.failed ? EXIT.FAILED : EXIT.OK;
}

export const testCommand: Command = { name: 'test', help: HELP, run };
