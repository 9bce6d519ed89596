/**
 * Builds the @verdict packages the suite imports (tsup, as `pnpm build` does),
 * so that measurements run the code users install.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const benchRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repo = resolve(benchRoot, '../..');

export function buildPackages(): void {
  // @verdict/cel first (core imports it); the audit workload runs @verdict/cli, which imports testing and every adapter.
  for (const pkg of ['cel', 'core', 'kubernetes', 'ci', 'spinnaker', 'testing', 'cli']) {
    const dir = join(repo, 'packages', pkg);
    if (!existsSync(join(dir, 'tsup.config.ts'))) continue;
    process.stderr.write(`bench: building @verdict/${pkg}\n`);
    const r = spawnSync(join(repo, 'node_modules/.bin/tsup'), [], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) throw new Error(`building @verdict/${pkg} failed (exit ${r.status ?? r.signal}); pass --source to measure the sources`);
  }
}

/** Node flags for a child: the sources through tsx (`--source`) or the built packages. */
export function childFlags(source: boolean): string[] {
  return ['--import', 'tsx', ...(source ? ['--conditions=@verdict/source'] : [])];
}
