/**
 * `pnpm build:site`: the docs (VitePress over README.md, docs/ and the pages
 * they link to) and the playground, into site/dist (or `--out <dir>`).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build as buildPlayground } from 'vite';
import { build as buildDocs } from 'vitepress';
import { playgroundConfig, repoRoot } from '../playground/build-config.js';

/** Builds the whole site into `outDir`; the playground is `<outDir>/playground/index.html`. */
export async function buildSite(outDir: string): Promise<void> {
  process.env['VERDICT_SITE_OUT'] = outDir;
  await buildDocs(resolve(repoRoot, 'site'));
  await buildPlayground(playgroundConfig(outDir));
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const at = process.argv.indexOf('--out');
  const outDir = resolve(at > 0 && process.argv[at + 1] ? (process.argv[at + 1] as string) : resolve(repoRoot, 'site/dist'));
  await buildSite(outDir);
  console.log(`site: ${outDir} (playground: ${resolve(outDir, 'playground/index.html')})`);
}
