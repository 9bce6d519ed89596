/** `verdict validate <paths...>`: load and schema-check policy files, every override included, then lint them. */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { formatProblem, parsePolicyDocuments, PolicyLoadError, type PolicyDocument, type Problem } from '@verdict/core';
import type { AdapterName } from '@verdict/testing';
import { displayPath, findPolicyFiles } from '@verdict/testing/internal';
import { detectPolicyAdapter, loadPoliciesFor } from '../policy/detect.js';
import { lintPolicies, type Finding } from '../policy/lint.js';
import { choice, parse, str } from '../args.js';
import { CliError, EXIT, styleFor, type Io } from '../io.js';
import type { Command } from './command.js';
import { ADAPTERS } from './shared.js';

const HELP = `Usage: verdict validate <paths...> [options]

Loads every policy file under the paths (.yaml, .yml, .json; suites and a
project's own files such as package.json and tsconfig.json skipped) as one
set, checks each document against the schema and compiles it, merging and
validating every parameterSelection entry against the template's
parametersSchema. A file with YAML syntax errors is reported and left out;
the other files are still checked. Then lints what loading cannot reject: parameterSelection
entries that can never be chosen (after a catch-all entry under MatchFirst, a
repeat of an earlier entry, or a selector that contradicts the constraint's
own match) and matches that can never hold. Prints every problem with file,
line and JSON path.

Options:
  -p, --policies <path>  more policy files or directories (like the paths)
      --as <adapter>     the match vocabulary: core, kubernetes, ci or spinnaker
                         (default: from the documents, e.g. Gatekeeper constraints → kubernetes)
      --no-lint          only load and schema-check
  -o, --output <format>  text (default) or json
  -h, --help             show this help

Exit codes: 0 valid and no lint finding, 1 problems or lint findings,
2 usage error or a path that does not exist.
`;

interface PolicyFile {
  /** Absolute path. */
  path: string;
  source: string;
  text: string;
  documents: PolicyDocument[];
  /** Syntax problems: the file's documents are left out of the set. */
  problems: Problem[];
}

/** Reads every policy file on its own, so that one file's syntax errors do not hide the problems of the others. */
function readEachFile(paths: readonly string[], cwd: string): PolicyFile[] {
  let files: string[];
  try {
    files = findPolicyFiles(paths, { cwd });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  return files.map((file): PolicyFile => {
    const source = displayPath(file, cwd);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      return { path: file, source, text: '', documents: [], problems: [{ code: 'NOT_A_DOCUMENT', document: 0, path: '', source, message: `cannot read the file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` }] };
    }
    try {
      return { path: file, source, text, documents: parsePolicyDocuments(text, { source }), problems: [] };
    } catch (error) {
      if (!(error instanceof PolicyLoadError)) throw error;
      return { path: file, source, text, documents: [], problems: [...error.problems] };
    }
  });
}

const TEST_KINDS: ReadonlyArray<{ group: string; kind: string; what: string; files: (doc: Record<string, unknown>) => unknown[] }> = [
  // gator verify: tests[].cases[].object and inventory are the objects it reviews.
  { group: 'test.gatekeeper.sh/', kind: 'Suite', what: 'gator suite', files: (doc) => list(doc['tests']).flatMap((t) => list(record(t)['cases'])).flatMap((c) => [record(c)['object'], ...list(record(c)['inventory'])]) },
  // kyverno test: resources are the objects it checks.
  { group: 'cli.kyverno.io/', kind: 'Test', what: 'Kyverno CLI test', files: (doc) => list(doc['resources']) },
];

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * The test files in a policy folder (a gatekeeper-library folder has a gator suite and the sample objects it reviews) and the
 * files they name as objects to check: none of them is a policy. Returns why each such file is left out, by absolute path.
 */
function testFiles(files: readonly PolicyFile[]): Map<string, { reason: string; object: boolean }> {
  const out = new Map<string, { reason: string; object: boolean }>();
  for (const f of files) {
    for (const doc of f.documents) {
      const test = TEST_KINDS.find((t) => String(doc['apiVersion'] ?? '').startsWith(t.group) && doc['kind'] === t.kind);
      if (!test) continue;
      out.set(f.path, { reason: test.what, object: false });
      for (const name of test.files(doc)) if (typeof name === 'string' && name !== '') out.set(resolve(dirname(f.path), name), { reason: `an object the ${test.what} ${f.source} checks`, object: true });
    }
  }
  return out;
}

/** Drops "no PolicyTemplate defines kind X" when a file left out for its syntax errors mentions kind X: fix that file first. */
function withoutKindsOfBrokenFiles(problems: readonly Problem[], files: readonly PolicyFile[]): Problem[] {
  const broken = files.filter((f) => f.problems.length > 0).map((f) => f.text);
  return problems.filter((p) => {
    const kind = p.code === 'UNKNOWN_KIND' ? /kind "([^"]+)"/.exec(p.message)?.[1] : undefined;
    return kind === undefined || !broken.some((text) => new RegExp(`\\bkind:\\s*["']?${kind.replace(/[^A-Za-z0-9]/g, '\\$&')}["']?\\s*$`, 'm').test(text));
  });
}

function findingLine(f: Finding): string {
  const problem = { ...f, code: f.code as unknown as Problem['code'], name: `${f.kind}/${f.policy}` } as Problem;
  return `${formatProblem(problem)} [${f.code}]`;
}

async function run(argv: readonly string[], io: Io): Promise<number> {
  const parsed = parse('validate', argv, {
    policies: { type: 'string', short: 'p', multiple: true }, as: { type: 'string' }, 'no-lint': { type: 'boolean' },
    output: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' },
  }, true);
  if (parsed.values['help']) {
    io.stdout.write(HELP);
    return EXIT.OK;
  }
  const format = choice('validate', 'output', str(parsed, 'output'), ['text', 'json'] as const) ?? 'text';
  const paths = [...parsed.positionals, ...((parsed.values['policies'] as string[] | undefined) ?? [])];
  if (paths.length === 0) throw new CliError('verdict validate needs paths: verdict validate <files or directories>; see verdict validate --help');
  const s = styleFor(io);
  let problems: Problem[] = [];
  let findings: Finding[] = [];
  let adapter: AdapterName = choice<AdapterName>('validate', 'as', str(parsed, 'as'), ADAPTERS) ?? 'core';
  let loaded: { policies: number; documents: number } | undefined;
  const read = readEachFile(paths, io.cwd);
  const tests = testFiles(read);
  const skipped = read.filter((f) => tests.has(f.path)).map((f) => ({ source: f.source, reason: tests.get(f.path)!.reason }));
  const skippedObjects = read.filter((f) => tests.get(f.path)?.object === true).length;
  const files = read.filter((f) => !tests.has(f.path));
  const documents = files.flatMap((f) => f.documents);
  if (documents.length === 0 && files.every((f) => f.problems.length === 0)) throw new CliError(`no policy documents found in ${paths.join(', ')}`, { exit: EXIT.FAILED });
  try {
    if (str(parsed, 'as') === undefined) adapter = detectPolicyAdapter(documents);
    const set = loadPoliciesFor(adapter, documents);
    loaded = { policies: set.policies.length, documents: documents.length };
    if (parsed.values['no-lint'] !== true) findings = lintPolicies(adapter, documents);
  } catch (error) {
    if (error instanceof PolicyLoadError) problems = withoutKindsOfBrokenFiles(error.problems, files);
    else if (error instanceof CliError) throw error;
    else throw new CliError((error as Error).message);
  }
  // Every file's syntax problems, then what the rest does not load for, in file order.
  const order = new Map(files.map((f, i) => [f.source, i]));
  problems = [...files.flatMap((f) => f.problems), ...problems].sort((a, b) =>
    (order.get(a.source ?? '') ?? 0) - (order.get(b.source ?? '') ?? 0) || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  if (problems.length > 0) loaded = undefined;
  if (format === 'json') {
    io.stdout.write(`${JSON.stringify({ valid: problems.length === 0 && findings.length === 0, adapter, problems, lint: findings, skipped }, null, 2)}\n`);
  } else {
    for (const p of problems) io.stdout.write(`${s.bad('✗')} ${formatProblem(p)}\n`);
    for (const f of findings) io.stdout.write(`${s.warn('!')} ${findingLine(f)}\n`);
    if (skipped.length) {
      const suites = skipped.length - skippedObjects;
      io.stdout.write(s.dim(`not policies, left out: ${suites} test file${suites === 1 ? '' : 's'} (gator suites, Kyverno CLI tests) and ${skippedObjects} object${skippedObjects === 1 ? '' : 's'} they check\n`));
    }
    const inFiles = new Set(problems.map((p) => p.source)).size;
    if (problems.length) io.stdout.write(s.bad(`${problems.length} problem${problems.length === 1 ? '' : 's'}${inFiles > 1 ? ` in ${inFiles} files` : ''}: the policies do not load (${adapter})\n`));
    else if (loaded) {
      const what = `${loaded.documents} document${loaded.documents === 1 ? '' : 's'}, ${loaded.policies} ${loaded.policies === 1 ? 'policy' : 'policies'} (${adapter})`;
      io.stdout.write(findings.length ? s.warn(`${what} load, with ${findings.length} lint finding${findings.length === 1 ? '' : 's'}\n`) : s.ok(`✓ ${what}: valid\n`));
    }
  }
  return problems.length || findings.length ? EXIT.FAILED : EXIT.OK;
}

export const validateCommand: Command = { name: 'validate', help: HELP, run };
