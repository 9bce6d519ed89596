/**
 * Until the first release, verdict installs from a clone
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
      expect(stdout).toContain(`npm install ${join(out, 'verdict-cel-0.1.0.tgz')} ${join(out, 'verdict-ci-0.1.0.tgz')} `);
      const { stdout: core } = await run('tar', ['-xzOf', join(out, 'verdict-core-0.1.0.tgz'), 'package/package.json']);
      expect((JSON.parse(core) as { dependencies: Record<string, string> }).dependencies['@verdict/cel']).toBe('^0.1.0');
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

describe('the checks of what ships', () => {
  const setup = () => {
    const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
    const sources = (project: string) => readdirSync(join(ROOT, 'integrations', project, 'src')).map((file) => read(join('integrations', project, 'src', file))).join('\n');
    /** Every entry point a package exports, as a user imports it (`@verdict/testing/vitest`). */
    const entries = readdirSync(join(ROOT, 'packages')).flatMap((dir) => {
      const manifest = JSON.parse(read(join('packages', dir, 'package.json'))) as { name: string; exports: Record<string, unknown> };
      return Object.keys(manifest.exports).filter((key) => key !== './package.json').map((key) => (key === '.' ? manifest.name : `${manifest.name}${key.slice(1)}`));
    });
    return { read, sources, entries };
  };

  it('run in CI: .ci/run builds, checks the packed packages and runs the integrations after the README test command', () => {
    const { read } = setup();
    const ci = read('.ci/run');
    const manifest = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    const at = (command: string) => ci.indexOf(`\nnpx -y pnpm@10 ${command}`);
    expect(at('install --frozen-lockfile && npx -y pnpm@10 test\n')).toBeGreaterThan(0);
    expect(at('test:build\n')).toBeGreaterThan(at('install --frozen-lockfile'));
    expect(manifest.scripts['test:build']).toMatch(/&& pnpm run test:integrations$/);
    expect(manifest.scripts['test:integrations']).toBe('node integrations/run.mjs');
    expect(read('integrations/run.mjs')).toContain("'scripts/pack-all.mjs'), '--no-build', '--out'");
  });

  it('import every entry point of every package in the NodeNext project (ESM and CommonJS) and the bundler project', () => {
    const { sources, entries } = setup();
    const nodenext = sources('nodenext');
    const bundler = sources('bundler');
    for (const entry of entries.filter((e) => !e.endsWith('.json'))) {
      expect(nodenext, entry).toMatch(new RegExp(`(from|import) '${entry}'`));
      // vitest is ESM-only, so its matchers are not loaded from CommonJS.
      if (!entry.endsWith('/vitest')) expect(nodenext, entry).toContain(`require('${entry}')`);
    }
    for (const entry of entries) expect(bundler, entry).toContain(`'${entry}'`);
  });

  it('type the vitest matchers on expect in both consumer projects', () => {
    const { sources } = setup();
    for (const project of ['nodenext', 'bundler']) {
      expect(sources(project), project).toContain("import '@verdict/testing/vitest';");
      expect(sources(project), project).toMatch(/expect\([^\n]*\)\.toBeDenied\(/);
    }
    const tsconfig = (project: string) => JSON.parse(readFileSync(join(ROOT, 'integrations', project, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
    expect(tsconfig('nodenext').compilerOptions).toMatchObject({ module: 'NodeNext', strict: true, skipLibCheck: false });
    expect(tsconfig('bundler').compilerOptions).toMatchObject({ moduleResolution: 'Bundler', strict: true, skipLibCheck: false });
  });
});
