/**
 * Runnable docs: every ```ts runnable block in docs/**\/*.md and README.md is
 * written to a temporary file under test/.docs-run/ and run in its own
 * Node process with tsx and the `@verdict/source` condition, as a reader would
 * run it with `npx tsx --conditions=@verdict/source <file>`. A block passes
 * when it exits 0 (blocks assert with node:assert/strict). Also checks that
 * relative links between docs pages point to files (and headings) that exist.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  extractLinks, extractRunnableBlocks, findDocs, headingAnchors, headingSlug, readDoc, type DocLink, type RunnableBlock,
} from './docs-markdown.js';
import { linkWorkspacePackages } from './docs-workspace.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Gitignored. Holds node_modules/@verdict/* links to the workspace packages and one folder per test process. */
const RUN_DIR = join(ROOT, 'test', '.docs-run');
const WORK_DIR = join(RUN_DIR, String(process.pid));
const BLOCK_TIMEOUT_MS = 60_000;

const docs = findDocs(ROOT);
const blocks: RunnableBlock[] = docs.flatMap((file) => extractRunnableBlocks(file, readDoc(ROOT, file)));

/**
 * tsx's loader, imported into a plain `node` process: the same as `npx tsx --conditions=@verdict/source <file>`
 * without the extra process the tsx CLI starts (about half the start-up time per block).
 */
const tsxLoader = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('tsx')).href;

function tempFileFor(block: RunnableBlock): string {
  return join(WORK_DIR, `${block.file.replace(/[^A-Za-z0-9]+/g, '-')}-L${block.line}.ts`);
}

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one block; its code starts on the same line number as in the Markdown file, so stack traces point at the docs. */
function runBlock(block: RunnableBlock): Promise<RunResult> {
  const file = tempFileFor(block);
  writeFileSync(file, `${'\n'.repeat(block.line)}${block.code}\n`);
  const env = { ...process.env };
  delete env['NODE_OPTIONS'];
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--conditions=@verdict/source', '--import', tsxLoader, file],
      { cwd: ROOT, env, timeout: BLOCK_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        const clean = (text: string) => text.split(pathToFileURL(file).href).join(block.file).split(file).join(block.file);
        done({ code, stdout: clean(stdout), stderr: clean(stderr) + (error && error.killed ? `\n(killed after ${BLOCK_TIMEOUT_MS} ms)` : '') });
      },
    );
  });
}

describe('runnable docs blocks', () => {
  beforeAll(() => {
    linkWorkspacePackages(ROOT, RUN_DIR);
    mkdirSync(WORK_DIR, { recursive: true });
  });
  afterAll(() => {
    // Leaves nothing behind for eslint or tsc to pick up.
    rmSync(WORK_DIR, { recursive: true, force: true });
  });

  it('finds the docs pages', () => {
    expect(docs.length).toBeGreaterThan(0);
  });

  for (const block of blocks) {
    it.concurrent(`${block.file}:${block.line}`, async () => {
      const result = await runBlock(block);
      if (result.code !== 0) {
        const stdout = result.stdout.trim() ? `\n--- stdout ---\n${result.stdout.trim().slice(-4000)}` : '';
        throw new Error(`${block.file}:${block.line} exited with ${result.code ?? 'a signal'}\n--- stderr ---\n${result.stderr.trim().slice(-8000)}${stdout}`);
      }
    }, BLOCK_TIMEOUT_MS + 10_000);
  }
});

/** Why a relative link is broken, or `undefined` when it resolves. */
function brokenReason(link: DocLink, anchorsOf: (file: string) => Set<string>): string | undefined {
  const target = link.target;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto:, …
  const [pathPart = '', fragment] = target.split('#', 2);
  const file = pathPart === '' ? link.file : posix.normalize(posix.join(posix.dirname(link.file), decodeURI(pathPart)));
  if (file.startsWith('..')) return `points outside the repository (${file})`;
  if (!existsSync(join(ROOT, file))) return `${file} does not exist`;
  if (fragment !== undefined && file.endsWith('.md') && !anchorsOf(file).has(fragment.toLowerCase())) {
    return `${file} has no heading with anchor #${fragment}`;
  }
  return undefined;
}

describe('links between docs pages', () => {
  const anchors = new Map<string, Set<string>>();
  const anchorsOf = (file: string): Set<string> => {
    let set = anchors.get(file);
    if (!set) {
      set = headingAnchors(readDoc(ROOT, file));
      anchors.set(file, set);
    }
    return set;
  };

  for (const file of docs) {
    it(`every relative link in ${file} points to an existing file and heading`, () => {
      const broken = extractLinks(file, readDoc(ROOT, file))
        .map((link) => ({ link, reason: brokenReason(link, anchorsOf) }))
        .filter((x) => x.reason !== undefined)
        .map(({ link, reason }) => `${link.file}:${link.line}: (${link.target}) ${reason}`);
      expect(broken).toEqual([]);
    });
  }
});

describe('docs-markdown helpers', () => {
  const setup = () => ({
    text: [
      '# Title',
      'See [rules](concepts/rules.md#forEach) and `[not](a-link.md)`.',
      '```ts runnable',
      "import assert from 'node:assert/strict';",
      'assert.equal(1, 1);',
      '```',
      '```ts',
      'not run',
      '```',
      '````md',
      '```ts runnable',
      'nested: not run',
      '```',
      '[inside code](nope.md)',
      '````',
      '  ```typescript runnable',
      '  indented();',
      '  ```',
      '## Title',
    ].join('\n'),
  });

  it('extracts only ts runnable blocks, with the line of the opening fence and indentation removed', () => {
    const { text } = setup();
    expect(extractRunnableBlocks('x.md', text)).toEqual([
      { file: 'x.md', line: 3, code: "import assert from 'node:assert/strict';\nassert.equal(1, 1);" },
      { file: 'x.md', line: 16, code: 'indented();' },
    ]);
  });

  it('extracts links outside code blocks and code spans', () => {
    const { text } = setup();
    expect(extractLinks('x.md', text)).toEqual([{ file: 'x.md', line: 2, target: 'concepts/rules.md#forEach' }]);
  });

  it('computes GitHub heading anchors, numbering repeats', () => {
    const { text } = setup();
    expect([...headingAnchors(text)]).toEqual(['title', 'title-1']);
    expect(headingSlug('`forEach` over missing/null: zero runs')).toBe('foreach-over-missingnull-zero-runs');
  });

  it('reports a link to a missing page with its line', () => {
    const reason = brokenReason({ file: 'docs/index.md', line: 3, target: 'no-such-page.md' }, () => new Set());
    expect(reason).toBe('docs/no-such-page.md does not exist');
  });

  it('finds README.md and the pages under docs/', () => {
    expect(findDocs(ROOT)).toContain('README.md');
    expect(relative(ROOT, RUN_DIR)).toBe(join('test', '.docs-run'));
  });
});

/** The string literals of `export type <name> = 'A' | 'B' …;` in a source file. */
function unionMembers(file: string, name: string): string[] {
  const source = readFileSync(join(ROOT, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  const start = source.indexOf(`export type ${name} =`);
  if (start < 0) return [];
  const body = source.slice(start, source.indexOf(';', start));
  return [...body.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]!);
}

/** The string literals of every `extends VerdictError<'A' | 'B'>` in core's sources (error classes with codes of their own). */
function coreErrorClassCodes(): string[] {
  const codes = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) {
        for (const m of readFileSync(path, 'utf8').matchAll(/extends VerdictError<([^>]+)>/g)) for (const c of m[1]!.matchAll(/'([A-Z_]+)'/g)) codes.add(c[1]!);
      }
    }
  };
  walk(join(ROOT, 'packages', 'core', 'src'));
  return [...codes].sort();
}

describe('error code pages', () => {
  const unions = [
    ['packages/core/src/errors.ts', 'VerdictErrorCode'],
    ['packages/core/src/errors.ts', 'ProblemCode'],
    ['packages/core/src/types.ts', 'DecisionErrorCode'],
  ] as const;

  it('every code of a core error class (`extends VerdictError<…>`) has a page under docs/errors/ listed in docs/errors/index.md', () => {
    const codes = coreErrorClassCodes();
    expect(codes).toEqual(expect.arrayContaining(['BUDGET_EXCEEDED', 'COST_LIMIT_EXCEEDED', 'POLICY_LOAD']));
    const index = readDoc(ROOT, 'docs/errors/index.md');
    expect(codes.filter((code) => !existsSync(join(ROOT, 'docs', 'errors', `${code}.md`)) || !index.includes(`(${code}.md)`))).toEqual([]);
  });

  for (const [file, name] of unions) {
    it(`every ${name} has a page under docs/errors/ listed in docs/errors/index.md`, () => {
      const codes = unionMembers(file, name);
      expect(codes.length).toBeGreaterThan(3);
      const index = readDoc(ROOT, 'docs/errors/index.md');
      const missing = codes.filter((code) => !existsSync(join(ROOT, 'docs', 'errors', `${code}.md`)) || !index.includes(`(${code}.md)`));
      expect(missing).toEqual([]);
    });
  }
});
