/**
 * `pnpm --filter @verdict/site screenshot`: rebuilds the site into a
 * temporary directory and saves the playground's screenshot as
 * site/playground.png (shown in the README). The browser test takes the
 * same screenshot with the same function.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildSite } from './build.js';
import { launchChromium, screenshotPlayground } from './chromium.js';
import { serveSite } from './serve.js';
import { repoRoot } from '../playground/build-config.js';

const out = mkdtempSync(join(tmpdir(), 'verdict-site-'));
try {
  await buildSite(out);
  const site = await serveSite(out, { port: 0 });
  const browser = await launchChromium();
  try {
    const file = resolve(repoRoot, 'site/playground.png');
    await screenshotPlayground(await browser.newPage(), site.url, file);
    console.log(`screenshot: ${file}`);
  } finally {
    await browser.close();
    await site.close();
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
