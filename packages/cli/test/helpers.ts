/** Runs the real `verdict` binary (from sources, through tsx) as a child process. */
import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const FIXTURES = join(ROOT, 'packages/cli/test/fixtures');
const BIN = join(ROOT, 'packages/cli/src/bin.ts');
const TSX = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('tsx')).href;

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `verdict ...args` in `cwd` (default the repository root); `env` is added to a colour-free environment. */
export function verdict(args: readonly string[], options: { cwd?: string; env?: Record<string, string>; stdin?: string } = {}): Promise<Run> {
  const env: Record<string, string | undefined> = { ...process.env, ...options.env };
  delete env['NODE_OPTIONS'];
  if (!options.env || !('FORCE_COLOR' in options.env)) delete env['FORCE_COLOR'];
  if (!options.env || !('NO_COLOR' in options.env)) delete env['NO_COLOR'];
  return new Promise((done) => {
    const child = execFile(
      process.execPath, ['--import', TSX, '--conditions=@verdict/source', BIN, ...args],
      { cwd: options.cwd ?? ROOT, env, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => done({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
    if (options.stdin !== undefined) child.stdin?.end(options.stdin);
    else child.stdin?.end();
  });
}

/** A temporary directory with `files`; `cleanup()` removes it. */
export function tempTree(files: Record<string, string>): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'verdict-cli-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
