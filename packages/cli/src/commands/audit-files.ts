/**
 * The paths given to `verdict audit` and `verdict diff`: files as given,
 * folders searched recursively for `.yaml`, `.yml` and `.json` files (other
 * files, dot-folders, `node_modules` and `*.verdict.yaml` suites skipped),
 * `-` for standard input. Each text is parsed as it is read.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { CliError, type Io } from '../io.js';
import { parseManifests, type ParseLimits, type Parsed } from './audit-parse.js';

const MANIFEST = /\.(ya?ml|json)$/i;
const SUITE = /\.verdict\.ya?ml$/i;

/** Label of standard input in reports. */
export const STDIN = '(stdin)';

function walk(dir: string, out: string[]): void {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else if ((entry.isFile() || entry.isSymbolicLink()) && MANIFEST.test(entry.name) && !SUITE.test(entry.name)) out.push(path);
  }
}

function display(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith('..') ? rel.split('\\').join('/') : path;
}

/**
 * The files under `paths` (absolute), in order, without repeats and without
 * `exclude` (e.g. the policy files). `-` stays `-`. Throws `CliError` (exit 2)
 * for a path that does not exist.
 */
export function findManifestFiles(command: string, paths: readonly string[], cwd: string, exclude: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  for (const given of paths) {
    if (given === '-') {
      out.push('-');
      continue;
    }
    const path = resolve(cwd, given);
    let stat;
    try {
      stat = statSync(path);
    } catch {
      throw new CliError(`no such file or directory: ${given}; see verdict ${command} --help`);
    }
    if (stat.isDirectory()) walk(path, out);
    else out.push(path);
  }
  return [...new Set(out)].filter((p) => !exclude.has(p));
}

/** Everything read from the paths. */
export interface ReadManifests extends Parsed {
  /** Files read (standard input counts as one). */
  files: number;
}

/**
 * Reads and parses every manifest under `paths`. A file that cannot be read
 * or parsed is a problem; the others are still read. `onFile` is called after
 * each file (for progress).
 */
export async function readManifests(
  command: string, paths: readonly string[], context: { io: Io; limits: ParseLimits; exclude?: ReadonlySet<string>; onFile?: (file: string, objects: number) => void },
): Promise<ReadManifests> {
  const { io, limits } = context;
  const files = findManifestFiles(command, paths, io.cwd, context.exclude);
  const out: ReadManifests = { manifests: [], problems: [], warnings: [], files: files.length };
  for (const path of files) {
    const file = path === '-' ? STDIN : display(path, io.cwd);
    let text: string;
    try {
      if (path === '-') {
        if (!io.stdin) throw new CliError(`cannot read manifests from standard input here; see verdict ${command} --help`);
        text = await io.stdin();
      } else text = readFileSync(path, 'utf8');
    } catch (error) {
      if (error instanceof CliError) throw error;
      out.problems.push({ file, line: 1, message: `cannot read the file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` });
      continue;
    }
    const parsed = parseManifests(file, text, limits, /\.json$/i.test(path));
    // push(...) would overflow the stack for a List of a few hundred thousand items.
    for (const m of parsed.manifests) out.manifests.push(m);
    out.problems.push(...parsed.problems);
    out.warnings.push(...parsed.warnings);
    context.onFile?.(file, parsed.manifests.length);
  }
  return out;
}
