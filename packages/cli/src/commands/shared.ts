/** What eval, explain and validate share: reading policies, the input and the adapter settings. */
import { dirname, resolve } from 'node:path';
import { formatProblem, PolicyLoadError, VerdictError, type PolicyDocument } from '@verdict/core';
import { evaluateInput, type AdapterName, type AdapterOptions, type EvaluateInputOptions, type Outcome } from '@verdict/testing';
import { parseInput, readInputFile, readPolicyFiles } from '@verdict/testing/internal';
import { choice, list, pairs, str, type Options, type Parsed } from '../args.js';
import { CliError, EXIT, type Io } from '../io.js';

export const ADAPTERS = ['core', 'kubernetes', 'ci', 'spinnaker'] as const;
export const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const;

/** Options of eval and explain. */
export const inputOptions: Options = {
  policies: { type: 'string', short: 'p', multiple: true },
  input: { type: 'string', short: 'i' },
  as: { type: 'string' },
  config: { type: 'string', short: 'c' },
  'namespace-labels': { type: 'string', multiple: true },
  operation: { type: 'string' },
  'old-object': { type: 'string' },
  'cost-budget': { type: 'string' },
  'no-defaults': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

export const INPUT_HELP = `  -p, --policies <path>       policy file or directory (repeatable, or comma-separated); not with
                              a ci.chain in --config, whose levels name their own policies
  -i, --input <file>          the input: a bare Kubernetes object, an AdmissionReview, a CI job,
                              a Fiat query or a core input document (YAML or JSON; - for stdin)
      --as <adapter>          core, kubernetes, ci or spinnaker (default: from the input's shape)
  -c, --config <file>         adapter settings, as in a suite: kubernetes: {namespaces, failurePolicy,
                              mutating}, ci: {chain, runners}, spinnaker: {definitions, fiat, ...}
      --namespace-labels k=v  labels of the object's namespace (kubernetes; repeatable)
      --operation <op>        CREATE, UPDATE, DELETE or CONNECT (kubernetes; default CREATE)
      --old-object <file>     the existing object, for UPDATE and DELETE (kubernetes)
      --cost-budget <units>   cost budget of the evaluation (default 10000000; see docs/security.md)
      --no-defaults           review a bare Kubernetes object as written (default: with the API
                              server's defaults for built-in kinds applied first, as admission sees it)`;

/** Policy load problems, one line each, as a CliError. */
export function loadError(error: unknown, exit: number = EXIT.USAGE): CliError {
  if (error instanceof PolicyLoadError) {
    return new CliError(error.problems.map(formatProblem).join('\n'), { exit, code: 'CLI_INPUT' });
  }
  if (error instanceof VerdictError) return new CliError(error.message, { exit, code: 'CLI_INPUT' });
  return error as CliError;
}

/** Reads the `-p` paths; throws CliError (exit 2) listing every problem. */
export function readPolicies(command: string, parsed: Parsed, io: Io, required = true): PolicyDocument[] {
  const paths = [...list(parsed, 'policies'), ...(command === 'validate' ? parsed.positionals : [])];
  if (paths.length === 0) {
    if (!required) return [];
    throw new CliError(`verdict ${command} needs policies: ${command === 'validate' ? 'verdict validate <paths...>' : '-p <file or directory>'}; see verdict ${command} --help`);
  }
  try {
    return readPolicyFiles(paths, { cwd: io.cwd });
  } catch (error) {
    throw loadError(error);
  }
}

async function readValue(path: string, io: Io, what: string): Promise<unknown> {
  try {
    if (path === '-') {
      if (!io.stdin) throw new CliError(`cannot read the ${what} from standard input here`);
      return parseInput(await io.stdin(), 'standard input');
    }
    return readInputFile(resolve(io.cwd, path), path);
  } catch (error) {
    throw error instanceof VerdictError ? new CliError(error.message, { code: 'CLI_INPUT' }) : error;
  }
}

/** Adapter settings from `--config` (and `baseDir`, the directory their relative paths start from). */
export async function readConfig(parsed: Parsed, io: Io): Promise<AdapterOptions> {
  const config = str(parsed, 'config');
  if (config === undefined) return { baseDir: io.cwd };
  const settings = await readValue(config, io, 'config');
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) {
    throw new CliError(`--config ${config} must hold a map with kubernetes:, ci: or spinnaker: settings`);
  }
  const known = ['kubernetes', 'ci', 'spinnaker'];
  for (const key of Object.keys(settings)) {
    if (!known.includes(key)) throw new CliError(`--config ${config}: unknown key "${key}" (expected kubernetes, ci or spinnaker)`);
  }
  return { ...(settings as AdapterOptions), baseDir: dirname(resolve(io.cwd, config)) };
}

/** The input and how to evaluate it, from `-i`, `--as`, `--config` and the Kubernetes flags. */
export async function readInput(command: string, parsed: Parsed, io: Io, config?: AdapterOptions): Promise<{ input: unknown; options: EvaluateInputOptions }> {
  const path = str(parsed, 'input');
  if (path === undefined) throw new CliError(`verdict ${command} needs an input: -i <file> (or -i - for standard input); see verdict ${command} --help`);
  const input = await readValue(path, io, 'input');
  // A bare object reaches admission after the API server's defaulting (an AdmissionReview already carries it).
  const options: EvaluateInputOptions = { baseDir: io.cwd, defaults: parsed.values['no-defaults'] !== true };
  const as = choice<AdapterName>(command, 'as', str(parsed, 'as'), ADAPTERS);
  if (as) options.as = as;
  const operation = choice(command, 'operation', str(parsed, 'operation'), OPERATIONS);
  if (operation) options.operation = operation;
  const labels = list(parsed, 'namespace-labels');
  if (labels.length) options.namespaceLabels = pairs(command, 'namespace-labels', labels);
  const old = str(parsed, 'old-object');
  if (old !== undefined) options.oldObject = await readValue(old, io, 'old object');
  const budget = str(parsed, 'cost-budget');
  if (budget !== undefined) {
    const costBudget = Number(budget);
    if (!/^[0-9]+$/.test(budget) || costBudget <= 0) throw new CliError(`--cost-budget must be a positive whole number of units (got "${budget}")`);
    options.limits = { costBudget };
  }
  Object.assign(options, config ?? await readConfig(parsed, io));
  return { input, options };
}

/** eval and explain: read `-p` and `-i` (with the adapter flags), then evaluate; a policy that does not load is a usage error. */
export async function evaluateFromArgs(command: string, parsed: Parsed, io: Io): Promise<{ input: unknown; options: EvaluateInputOptions; outcome: Outcome }> {
  // A CI chain in --config names each level's policies (as in a suite): -p is then neither needed nor used.
  const config = await readConfig(parsed, io);
  const chained = config.ci?.['chain'] !== undefined;
  const documents = readPolicies(command, parsed, io, !chained);
  if (chained && list(parsed, 'policies').length > 0) {
    throw new CliError(`verdict ${command}: --config ${str(parsed, 'config') ?? ''} has a ci.chain, whose levels name their own policies; -p would not be used: leave it out, or add its files to a level of the chain`);
  }
  const { input, options } = await readInput(command, parsed, io, config);
  try {
    return { input, options, outcome: await evaluateInput(documents, input, options) };
  } catch (error) {
    throw loadError(error);
  }
}
