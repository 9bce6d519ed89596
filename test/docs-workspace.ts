/**
 * The folder docs blocks run and type-check in (test/.docs-run, gitignored):
 * node_modules/@verdict/* links to the workspace packages, so a block resolves
 * `@verdict/<name>` exactly as a user's project does, through each package's
 * exports map (the `@verdict/source` condition picks the TypeScript sources).
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Links every `@verdict/*` package of `root` into `runDir/node_modules` (idempotent; safe when test processes race). */
export function linkWorkspacePackages(root: string, runDir: string): void {
  const scope = join(runDir, 'node_modules', '@verdict');
  mkdirSync(scope, { recursive: true });
  // Blocks are ES modules (top-level await, import) whatever the root package.json says.
  writeFileSync(join(runDir, 'package.json'), '{"private": true, "type": "module"}\n');
  const packagesDir = join(root, 'packages');
  for (const dir of readdirSync(packagesDir)) {
    const manifest = join(packagesDir, dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const name = (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name;
    if (!name?.startsWith('@verdict/')) continue;
    const link = join(scope, name.slice('@verdict/'.length));
    if (existsSync(link) || isSymlink(link)) continue;
    try {
      symlinkSync(join(packagesDir, dir), link, 'dir');
    } catch (error) {
      // Another test process created it first.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
