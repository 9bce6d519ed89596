/** `verdict eval -p <policies> -i <input>`: print the decision, or the adapter's answer. */
import { stringify } from 'yaml';
import { detectAdapter } from '@verdict/testing';
import { choice, parse, str } from '../args.js';
import { EXIT, styleFor, type Io } from '../io.js';
import { describeAnswer } from './answer.js';
import type { Command } from './command.js';
import { evaluateFromArgs, INPUT_HELP, inputOptions } from './shared.js';

const HELP = `Usage: verdict eval -p <policies> -i <input> [options]

Evaluates one input and prints what the adapter would answer: the
AdmissionReview response (kubernetes), the job response (ci), the permission
answer (spinnaker), or the decision (core).

Options:
${INPUT_HELP}
  -o, --output <format>       json (default), yaml or text
  -h, --help                  show this help

Exit codes: 0 allowed (accepted), 1 denied (rejected), 2 usage error,
unreadable file or policies that do not load.
`;

async function run(argv: readonly string[], io: Io): Promise<number> {
  const parsed = parse('eval', argv, { ...inputOptions, output: { type: 'string', short: 'o' } }, false);
  if (parsed.values['help']) {
    io.stdout.write(HELP);
    return EXIT.OK;
  }
  const format = choice('eval', 'output', str(parsed, 'output'), ['json', 'yaml', 'text'] as const) ?? 'json';
  const { input, options, outcome } = await evaluateFromArgs('eval', parsed, io);
  if (format === 'text') io.stdout.write(`${describeAnswer(outcome, options.as ?? detectAdapter(input), styleFor(io))}\n`);
  else if (format === 'yaml') io.stdout.write(stringify(outcome.answer, { lineWidth: 0 }));
  else io.stdout.write(`${JSON.stringify(outcome.answer, null, 2)}\n`);
  return outcome.allowed ? EXIT.OK : EXIT.FAILED;
}

export const evalCommand: Command = { name: 'eval', help: HELP, run };
