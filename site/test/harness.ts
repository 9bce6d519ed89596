/**
 * Browser tests' harness: the site built once per change of its inputs (the
 * first test file to need it builds; the others wait for it), served on
 * 127.0.0.1. Chromium comes from scripts/chromium.ts.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectPages } from '../.vitepress/pages.js';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../scripts/chromium.js';
import { serveSite, type SiteServer } from '../scripts/serve.js';

export { nextRun, runs, screenshotPlayground } from '../scripts/chromium.js';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Inputs of the site build: a change to any of them means a new build. */
const INPUTS = ['README.md', 'docs', 'examples', 'packages', 'site', 'pnpm-lock.yaml'];
const SKIP = new Set(['node_modules', 'dist', 'cache', 'test', '.vitepress-cache']);

function hashInputs(): string {
  const hash = createHash('sha256');
  const visit = (path: string) => {
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const name of readdirSync(path).sort()) if (!SKIP.has(name) && !name.startsWith('.') || name === '.vitepress') visit(join(path, name));
    } else {
      hash.update(relative(repoRoot, path));
      hash.update(readFileSync(path));
    }
  };
  for (const input of INPUTS) if (existsSync(join(repoRoot, input))) visit(join(repoRoot, input));
  // Pages outside those directories (the bench README, root guides) are inputs of the docs too.
  for (const page of collectPages(repoRoot)) visit(join(repoRoot, page));
  return hash.digest('hex').slice(0, 16);
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/**
 * The built site for the current sources, in the OS temporary directory:
 * built by the first caller (a lock directory keeps parallel test files from
 * building it twice), reused by the others and by later runs until an input changes.
 */
export async function builtSite(): Promise<string> {
  const dir = join(tmpdir(), `verdict-site-${hashInputs()}`);
  const lock = `${dir}.lock`;
  for (;;) {
    if (existsSync(join(dir, 'playground', 'index.html'))) return dir;
    try {
      mkdirSync(lock);
    } catch {
      // Another test file is building it; a lock older than 10 minutes is left over from a crash.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 600_000) rmSync(lock, { recursive: true, force: true });
      await sleep(500);
      continue;
    }
    try {
      const out = `${dir}.${process.pid}`;
      await new Promise<void>((done, fail) => {
        const args = ['--conditions=@verdict/source', '--import', 'tsx', 'site/scripts/build.ts', '--out', out];
        execFile(process.execPath, args, { cwd: repoRoot, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
          if (error) fail(new Error(`the site build failed (${error.message}):\n${stdout}\n${stderr}`));
          else done();
        });
      });
      renameSync(out, dir);
      return dir;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** The built site, served on 127.0.0.1 on a free port. */
export async function servedSite(): Promise<SiteServer> {
  return serveSite(await builtSite(), { port: 0 });
}

/**
 * One served site and one browser for a test file, started by the first test
 * that asks (`get`) and stopped by the file's `afterAll(session.close)`.
 */
export function browserSession(): { get: () => Promise<{ site: SiteServer; browser: Browser }>; close: () => Promise<void> } {
  let started: Promise<{ site: SiteServer; browser: Browser }> | undefined;
  return {
    get: () => (started ??= (async () => ({ site: await servedSite(), browser: await launchChromium() }))()),
    async close() {
      if (!started) return;
      const { site, browser } = await started;
      await browser.close();
      await site.close();
    },
  };
}
