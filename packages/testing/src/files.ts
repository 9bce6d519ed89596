/**
 * Files on disk: policy files and directories, input files, suite discovery.
 * Shared by the suite runner and the CLI.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { parsePolicyDocuments, PolicyLoadError, type PolicyDocument, type Problem } from '@verdict/core';
import { SuiteError } from './errors.js';
import { looksLikeGatorSuite } from './gator/parse.js';
import { looksLikeKyvernoTest } from './kyverno/parse.js';

const SUITE = /\.verdict\.ya?ml$/;
/** gator's conventional suite file name (gatekeeper-library): found in directories when it holds a gator Suite. */
const GATOR_SUITE = /^suite\.ya?ml$/;
/** Kyverno's conventional test file name (`kyverno test --file-name` default), often in a `.kyverno-test` folder. */
const KYVERNO_TEST = /^kyverno-test\.ya?ml$/;
/** The one dot-folder suite discovery enters: Kyverno's convention for test files. */
const KYVERNO_TEST_DIR = '.kyverno-test';
const DATA = /\.(ya?ml|json)$/;
/**
 * Files a project folder holds next to its policies that are never policies: package manager
 * manifests and lockfiles, TypeScript and JavaScript compiler settings. A directory walk leaves
 * them out (so `verdict validate .` in a project does not report package.json); a file given
 * by name is still read.
 */
const PROJECT_FILE = /^(package\.json|package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.ya?ml|pnpm-workspace\.ya?ml|deno\.json|[jt]sconfig(\.[\w.-]+)?\.json)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', 'coverage']);

function walk(dir: string, accept: (name: string) => boolean, out: string[], dotDir?: string): void {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith('.') && !(entry.isDirectory() && entry.name === dotDir)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) walk(path, accept, out, dotDir);
    } else if (entry.isFile() && accept(entry.name)) out.push(path);
  }
}

function statOf(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** Shows `path` relative to `cwd` when it is inside it. */
export function displayPath(path: string, cwd = process.cwd()): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith('..') ? rel : path;
}

/**
 * Expands files and directories into suite files: a directory yields every
 * `*.verdict.yaml` / `*.verdict.yml` below it, every gator suite named
 * `suite.yaml` / `suite.yml`, and every Kyverno CLI test named
 * `kyverno-test.yaml` (sorted; `node_modules`, `dist` and dot-folders other
 * than `.kyverno-test` skipped); a file is taken as given. Throws
 * `SuiteError('SUITE_NOT_FOUND')` for a missing path or when nothing is found.
 */
export function findSuites(paths: readonly string[], options: { cwd?: string } = {}): string[] {
  const cwd = options.cwd ?? process.cwd();
  const out: string[] = [];
  for (const given of paths.length ? paths : ['.']) {
    const path = resolve(cwd, given);
    const stat = statOf(path);
    if (!stat) throw new SuiteError('SUITE_NOT_FOUND', `no such file or directory: ${given}`);
    if (stat.isDirectory()) {
      const found: string[] = [];
      walk(path, (name) => SUITE.test(name) || GATOR_SUITE.test(name) || KYVERNO_TEST.test(name), found, KYVERNO_TEST_DIR);
      out.push(...found.filter((file) => SUITE.test(file) || isGatorSuiteFile(file) || isKyvernoTestFile(file)));
    }
    else out.push(path);
  }
  const unique = [...new Set(out)];
  if (unique.length === 0) throw new SuiteError('SUITE_NOT_FOUND', `no *.verdict.yaml suite found under ${paths.join(', ') || '.'} (nor a gator suite.yaml or a kyverno-test.yaml)`);
  return unique.map((p) => displayPath(p, cwd));
}

/** Whether a file holds a Kyverno CLI test (`cli.kyverno.io`, kind Test); unreadable files are not. */
export function isKyvernoTestFile(file: string): boolean {
  try {
    return looksLikeKyvernoTest(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
}

/** Whether a file holds a gator suite (`test.gatekeeper.sh`); unreadable files are not. */
export function isGatorSuiteFile(file: string): boolean {
  try {
    return looksLikeGatorSuite(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Expands policy paths: a directory yields every `.yaml`, `.yml` and `.json`
 * file below it except suites and a project's own files (`package.json`,
 * lockfiles, `tsconfig*.json`, `pnpm-workspace.yaml`); a file is taken as given. Throws
 * `SuiteError('FILE_UNREADABLE')` for a missing path.
 */
export function findPolicyFiles(paths: readonly string[], options: { cwd?: string } = {}): string[] {
  const cwd = options.cwd ?? process.cwd();
  const out: string[] = [];
  for (const given of paths) {
    const path = resolve(cwd, given);
    const stat = statOf(path);
    if (!stat) throw new SuiteError('FILE_UNREADABLE', `no such policy file or directory: ${displayPath(path, cwd)}`);
    if (stat.isDirectory()) walk(path, (name) => DATA.test(name) && !SUITE.test(name) && !PROJECT_FILE.test(name), out);
    else out.push(path);
  }
  return [...new Set(out)];
}

/**
 * Reads and parses policy files (YAML or JSON) into one list of documents,
 * each remembering its file (shown relative to `cwd`) for line numbers in
 * problems. Throws `PolicyLoadError` listing the syntax problems of every file.
 */
export function readPolicyFiles(paths: readonly string[], options: { cwd?: string } = {}): PolicyDocument[] {
  const cwd = options.cwd ?? process.cwd();
  const documents: PolicyDocument[] = [];
  const problems: Problem[] = [];
  for (const file of findPolicyFiles(paths, { cwd })) {
    const source = displayPath(file, cwd);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      problems.push({ code: 'NOT_A_DOCUMENT', document: documents.length, path: '', source, message: `cannot read the file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` });
      continue;
    }
    try {
      documents.push(...parsePolicyDocuments(text, { source }));
    } catch (error) {
      if (!(error instanceof PolicyLoadError)) throw error;
      problems.push(...error.problems.map((p) => ({ ...p, document: documents.length + p.document })));
    }
  }
  if (problems.length > 0) throw new PolicyLoadError(problems);
  return documents;
}

/**
 * Reads one input (YAML or JSON) from a file: the file must hold exactly one
 * document (a list is one document). Throws `SuiteError('FILE_UNREADABLE')`.
 */
export function readInputFile(path: string, label = path): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new SuiteError('FILE_UNREADABLE', `cannot read input ${label}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
  }
  return parseInput(text, label);
}

/** Parses input text (YAML 1.2 or JSON) holding exactly one document. */
export function parseInput(text: string, label: string): unknown {
  const docs = parseAllDocuments(text, { prettyErrors: false, uniqueKeys: true });
  const list = Array.isArray(docs) ? docs : [];
  for (const doc of list) {
    const error = doc.errors[0];
    if (error) throw new SuiteError('FILE_UNREADABLE', `input ${label}: ${error.message.split('\n')[0]}`);
  }
  const values = list.map((doc) => doc.toJS({ maxAliasCount: 100 }) as unknown).filter((v) => v !== null && v !== undefined);
  if (values.length !== 1) {
    throw new SuiteError('FILE_UNREADABLE', `input ${label} must hold exactly one document (found ${values.length}); put each object in its own file or case`);
  }
  return values[0];
}
