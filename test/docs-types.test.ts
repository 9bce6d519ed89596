/**
 * Docs blocks type-check: every ```ts runnable block (run by docs.test.ts,
 * where tsx strips types without checking them) and every ```ts check block (a
 * complete program that is not run, such as a vitest test file) is written to
 * its own module under test/.docs-run/ and checked by one `tsc` run, strict,
 * against the packages' sources, as a user's editor would check it. Errors are
 * reported at the Markdown file and line.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractCheckedBlocks, findDocs, readDoc, type RunnableBlock } from './docs-markdown.js';
import { linkWorkspacePackages } from './docs-workspace.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RUN_DIR = join(ROOT, 'test', '.docs-run');
const WORK_DIR = join(RUN_DIR, `types-${process.pid}`);
const TSC = createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc');

const blocks: RunnableBlock[] = findDocs(ROOT).flatMap((file) => extractCheckedBlocks(file, readDoc(ROOT, file)));

function fileFor(block: RunnableBlock): string {
  return `${block.file.replace(/[^A-Za-z0-9]+/g, '-')}-L${block.line}.ts`;
}

/** Writes every block as a module (its code on the same lines as in the Markdown) and a strict tsconfig over them. */
function writeProject(): Map<string, RunnableBlock> {
  mkdirSync(WORK_DIR, { recursive: true });
  const byFile = new Map<string, RunnableBlock>();
  for (const block of blocks) {
    const name = fileFor(block);
    byFile.set(name, block);
    // `export {}` makes a block without imports a module too, so blocks never share top-level names.
    writeFileSync(join(WORK_DIR, name), `${'\n'.repeat(block.line)}${block.code}\nexport {};\n`);
  }
  const tsconfig = {
    extends: join(ROOT, 'tsconfig.base.json'),
    compilerOptions: { types: ['node'], noEmit: true, skipLibCheck: true, typeRoots: [join(ROOT, 'node_modules', '@types')] },
    include: ['*.ts'],
  };
  writeFileSync(join(WORK_DIR, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  return byFile;
}

/** `tsc` diagnostics on the blocks, as `docs/page.md:line:column: message`; errors in the packages themselves as they are. */
function runTsc(byFile: Map<string, RunnableBlock>): Promise<string[]> {
  return new Promise((done) => {
    execFile(process.execPath, [TSC, '-p', join(WORK_DIR, 'tsconfig.json'), '--pretty', 'false'], { cwd: WORK_DIR, maxBuffer: 16 * 1024 * 1024, timeout: 240_000 }, (_error, stdout) => {
      const lines = stdout.split('\n').filter((line) => /error TS\d+/.test(line));
      done(lines.map((line) => {
        const m = /^(?:.*[\\/])?([^\\/(]+\.ts)\((\d+),(\d+)\): (.*)$/.exec(line);
        const block = m ? byFile.get(m[1]!) : undefined;
        return block && m ? `${block.file}:${m[2]}:${m[3]}: ${m[4]}` : line;
      }));
    });
  });
}

describe('docs blocks type-check', () => {
  beforeAll(() => linkWorkspacePackages(ROOT, RUN_DIR));
  afterAll(() => rmSync(WORK_DIR, { recursive: true, force: true }));

  it('finds runnable and checked blocks', () => {
    expect(blocks.length).toBeGreaterThan(50);
  });

  it('every ts runnable and ts check block type-checks under strict settings', async () => {
    const errors = await runTsc(writeProject());
    expect(errors).toEqual([]);
  }, 300_000);
});
