/** `verdict explain -p <policies> -i <input>`: the trace, for a person. */
import { detectAdapter, formatTrace } from '@verdict/testing';
import { traceInWords } from '@verdict/testing/internal';
import { choice, parse, str } from '../args.js';
import { EXIT, styleFor, type Io } from '../io.js';
import { describeAnswer } from './answer.js';
import type { Command } from './command.js';
import { evaluateFromArgs, INPUT_HELP, inputOptions } from './shared.js';

const HELP = `Usage: verdict explain -p <policies> -i <input> [options]

Evaluates one input and prints why: the answer, then for every policy whether
it matched (and which selector ruled it out), which parameterSelection entry
won (and why earlier entries did not match), the merged parameters, each
rule's result with its messages, and the patch. Kubernetes documents are
explained in their own words (a binding's validationActions, its params,
matchResources, matchConditions, validations; kinitiras' resourceSelectors),
each place as file:line and the JSON pointer in the document you wrote. A CI
chain's policies of a dry-run level are marked [dry run (<name>): not enforced].

Options:
${INPUT_HELP}
  -o, --output <format>       text (default), or json: {allowed, denials, warnings, patch, trace}
                              (each place of a translated document in its source: document,
                              kind, name, path, file, line)
  -h, --help                  show this help

Exit codes: 0 allowed (accepted), 1 denied (rejected), 2 usage error,
unreadable file or policies that do not load.
`;

async function run(argv: readonly string[], io: Io): Promise<number> {
  const parsed = parse('explain', argv, { ...inputOptions, output: { type: 'string', short: 'o' } }, false);
  if (parsed.values['help']) {
    io.stdout.write(HELP);
    return EXIT.OK;
  }
  const format = choice('explain', 'output', str(parsed, 'output'), ['text', 'json'] as const) ?? 'text';
  const { input, options, outcome } = await evaluateFromArgs('explain', parsed, io);
  if (format === 'json') {
    const { allowed, denials, warnings, patch } = outcome;
    io.stdout.write(`${JSON.stringify({ allowed, denials, warnings, ...(patch ? { patch } : {}), trace: (outcome.decision?.trace ?? []).map(traceInWords) }, null, 2)}\n`);
    return allowed ? EXIT.OK : EXIT.FAILED;
  }
  const s = styleFor(io);
  const parts = [describeAnswer(outcome, options.as ?? detectAdapter(input), s)];
  if (outcome.decision) parts.push(`${s.bold('policies')}\n${formatTrace(outcome.decision, { style: s }).split('\n').map((l) => `  ${l}`).join('\n')}`);
  else parts.push(s.dim('(no decision was made: the input was refused before evaluation)'));
  io.stdout.write(`${parts.join('\n\n')}\n`);
  return outcome.allowed ? EXIT.OK : EXIT.FAILED;
}

export const explainCommand: Command = { name: 'explain', help: HELP, run };
