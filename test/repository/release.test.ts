import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { publishedPackages, read, repositoryFiles, ROOT } from './helpers.js';

const run = promisify(execFile);

describe('changesets', () => {
  it('release every published package together, as one fixed group, with a 2.x CLI that runs on Node 20', () => {
    const config = JSON.parse(read('.changeset/config.json')) as { fixed: string[][]; access: string; privatePackages: unknown };
    expect(config.fixed).toHaveLength(1);
    expect([...config.fixed[0]!].sort()).toEqual(publishedPackages().map((p) => p.manifest.name).sort());
    expect(config.access).toBe('public');
    expect(config.privatePackages).toEqual({ version: false, tag: false });
    const root = JSON.parse(read('package.json')) as { devDependencies: Record<string, string> };
    expect(root.devDependencies['@changesets/cli']).toMatch(/^2\.\d+\.\d+$/);
  });

  it('find a CHANGELOG with the current version in each published package, published with provenance', () => {
    for (const { dir, manifest } of publishedPackages()) {
      const changelog = read(`${dir}/CHANGELOG.md`);
      expect(changelog.startsWith(`# ${manifest.name}\n`), dir).toBe(true);
      expect(changelog).toContain(`\n## ${manifest.version}\n`);
      expect(manifest.publishConfig).toEqual({ access: 'public', provenance: true });
    }
  });
});

describe('scripts/release-metadata.mjs', () => {
  function setup() {
    const root = mkdtempSync(join(tmpdir(), 'verdict-release-'));
    const write = (dir: string, manifest: object) => {
      mkdirSync(join(root, 'packages', dir), { recursive: true });
      writeFileSync(join(root, 'packages', dir, 'package.json'), JSON.stringify(manifest));
    };
    write('core', { name: '@verdict/core', version: '1.0.0' });
    write('hidden', { name: 'hidden', private: true });
    const manifest = (dir: string) => JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    const script = join(ROOT, 'scripts/release-metadata.mjs');
    const env = (extra: Record<string, string>) => ({ PATH: process.env['PATH'] ?? '', ...extra });
    return { root, manifest, script, env, cleanup: () => rmSync(root, { recursive: true, force: true }) };
  }

  it('points each published package at the repository the workflow runs in, as npm provenance requires', async () => {
    const { root, manifest, script, env, cleanup } = setup();
    try {
      await run(process.execPath, [script, root], { env: env({ GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'acme/verdict' }) });
      expect(manifest('core')['repository']).toEqual({ type: 'git', url: 'git+https://github.com/acme/verdict.git', directory: 'packages/core' });
      expect(manifest('hidden')['repository']).toBeUndefined();
    } finally {
      cleanup();
    }
  });

  it('refuses to run outside a workflow, changing nothing', async () => {
    const { root, manifest, script, env, cleanup } = setup();
    try {
      await expect(run(process.execPath, [script, root], { env: env({}) })).rejects.toMatchObject({ code: 1 });
      expect(manifest('core')['repository']).toBeUndefined();
    } finally {
      cleanup();
    }
  });
});

describe('executables', () => {
  it('are files in the repository, so that a fresh pnpm install links them before any build (no "Failed to create bin")', () => {
    const files = new Set(repositoryFiles());
    const bins = publishedPackages().flatMap(({ dir, manifest }) => Object.values((manifest['bin'] ?? {}) as Record<string, string>).map((bin) => join(dir, bin).split('\\').join('/')));
    expect(bins).toContain('packages/cli/bin/verdict.js');
    expect(bins.filter((bin) => !files.has(bin))).toEqual([]);
  });
});
