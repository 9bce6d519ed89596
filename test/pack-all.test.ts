/**
 * Issue 17, point 4: until the first release, verdict installs from a clone
 * through `pnpm pack:all`, which writes one npm tarball per package. The
 * integrations under integrations/ install what it writes; this checks the
 * script's contract (names, folder, ranges) and that the README and the
 * getting-started page say how to use it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);

describe('pnpm pack:all', () => {
  const setup = () => {
    const out = mkdtempSync(join(tmpdir(), 'verdict-pack-'));
    return { out, cleanup: () => rmSync(out, { recursive: true, force: true }) };
  };

  it('writes one tarball per package, named as pnpm names them, with workspace ranges replaced by versions', async () => {
    const { out, cleanup } = setup();
    try {
      const { stdout } = await run(process.execPath, [join(ROOT, 'scripts', 'pack-all.mjs'), '--no-build', '--out', out], { cwd: ROOT, timeout: 240_000 });
      const packages = readdirSync(join(ROOT, 'packages')).sort();
      expect(readdirSync(out).sort()).toEqual(packages.map((name) => `verdict-${name}-0.1.0.tgz`));
      expect(stdout).toContain(`npm install ${join(out, 'verdict-ci-0.1.0.tgz')} `);
      const { stdout: manifest } = await run('tar', ['-xzOf', join(out, 'verdict-kubernetes-0.1.0.tgz'), 'package/package.json']);
      expect((JSON.parse(manifest) as { peerDependencies: Record<string, string> }).peerDependencies['@verdict/core']).toBe('^0.1.0');
    } finally {
      cleanup();
    }
  }, 300_000);

  it('is a root script, and the README and getting-started say how to install from a clone with it', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(manifest.scripts['pack:all']).toBe('node scripts/pack-all.mjs');
    for (const page of ['README.md', 'docs/getting-started.md']) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      expect(text, page).toContain('npx -y pnpm@10 pack:all');
      expect(text, page).toMatch(/npm install .*packed\/verdict-core-0\.1\.0\.tgz/);
    }
  });
});
