#!/usr/bin/env node
/**
 * Installs the packed @verdict/* tarballs into each consumer project of this folder, the way a
 * user's project gets them from npm, and runs its `check` script (strict `tsc` with
 * `skipLibCheck: false`, then the project's own runs). Each project is copied to a temporary
 * directory; `"packed"` in its dependencies becomes the tarball of that package.
 *
 *   node integrations/run.mjs [--packed <dir>] [--keep] [project...]
 *
 * Without `--packed`, every package is packed first with `scripts/pack-all.mjs --no-build`
 * (the packages must be built: `pnpm build`, or `pnpm test:build` which runs this).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const { values, positionals } = parseArgs({ options: { packed: { type: 'string' }, keep: { type: 'boolean' } }, allowPositionals: true });
const projects = positionals.length > 0
  ? positionals
  : readdirSync(here).filter((name) => statSync(join(here, name)).isDirectory() && name !== 'node_modules').sort();

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// Projects read VERDICT_PACKED (the tarballs) and VERDICT_REPOSITORY (this clone: its README and docs).
const env = () => ({ ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', VERDICT_PACKED: packed, VERDICT_REPOSITORY: root });
const run = (command, args, cwd) => execFileSync(command, args, { cwd, stdio: 'inherit', env: env() });

let packed = values.packed ? resolve(values.packed) : undefined;
const work = mkdtempSync(join(tmpdir(), 'verdict-integrations-'));
let failed = 0;
try {
  if (!packed) {
    packed = join(work, 'packed');
    run(process.execPath, [join(root, 'scripts/pack-all.mjs'), '--no-build', '--out', packed], root);
  }
  const tarballs = readdirSync(packed).filter((f) => f.endsWith('.tgz'));
  /** `@verdict/core` → the absolute path of `verdict-core-<version>.tgz`. */
  const tarballOf = (name) => {
    const prefix = `${name.replace(/^@/, '').replace('/', '-')}-`;
    const found = tarballs.filter((f) => f.startsWith(prefix) && /^\d/.test(f.slice(prefix.length)));
    if (found.length !== 1) throw new Error(`integrations: expected one tarball ${prefix}<version>.tgz in ${packed}, found ${found.length}`);
    return join(packed, found[0]);
  };

  for (const project of projects) {
    const dir = join(work, project);
    cpSync(join(here, project), dir, { recursive: true, filter: (src) => !/[\\/](node_modules|dist)$/.test(src) });
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    for (const field of ['dependencies', 'devDependencies']) {
      for (const [name, range] of Object.entries(manifest[field] ?? {})) {
        if (range === 'packed') manifest[field][name] = `file:${tarballOf(name)}`;
      }
    }
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    console.log(`\nintegrations: ${project} (${manifest.description ?? ''})`);
    try {
      run(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], dir);
      run(npm, ['run', '--silent', 'check'], dir);
      console.log(`integrations: ${project} passed`);
    } catch {
      failed++;
      console.error(`integrations: ${project} FAILED (project copy kept in ${dir})`);
    }
  }
} finally {
  if (!values.keep && failed === 0) rmSync(work, { recursive: true, force: true });
}
console.log(`\nintegrations: ${projects.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
