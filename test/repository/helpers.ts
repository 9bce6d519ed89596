/** The repository as the checks in this folder read it: its root, its tracked files, its published packages. */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export function read(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** Files git tracks or would add (untracked but not ignored), relative to the root, with `/` separators. */
export function repositoryFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return out.split('\0').filter((f) => f.length > 0);
}

export interface Manifest {
  name: string;
  version?: string;
  private?: boolean;
  license?: string;
  publishConfig?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The packages under packages/ that are published (not private), with their folder. */
export function publishedPackages(): Array<{ dir: string; manifest: Manifest }> {
  return readdirSync(join(ROOT, 'packages'))
    .sort()
    .map((dir) => ({ dir: `packages/${dir}`, manifest: JSON.parse(read(`packages/${dir}/package.json`)) as Manifest }))
    .filter((p) => !p.manifest.private);
}
