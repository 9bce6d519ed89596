import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BROWSER_ENTRIES, bundleForBrowser, measureBundles, type BundleName } from './measure.js';
import { readBudget, renderBundleSection } from './render.js';

function setup() {
  return { budget: readBudget(), docs: resolve(dirname(fileURLToPath(import.meta.url)), '../../docs/performance.md') };
}

describe('browser bundles', () => {
  it('builds core and every adapter for the browser without Node built-ins, within the budget', { timeout: 300_000 }, async () => {
    const { budget } = setup();
    const sizes = await measureBundles();
    expect(Object.keys(sizes)).toEqual(Object.keys(budget.bundles));
    for (const name of Object.keys(BROWSER_ENTRIES) as BundleName[]) {
      const recorded = budget.bundles[name];
      const limit = (bytes: number) => Math.ceil(bytes * (1 + budget.tolerance));
      expect(sizes[name].gzip, `${name} (gzip; run \`pnpm size\` after a deliberate change)`).toBeLessThanOrEqual(limit(recorded.gzip));
      expect(sizes[name].withCore, `${name} with core (gzip)`).toBeLessThanOrEqual(limit(recorded.withCore));
    }
  });

  it('fails the build of an entry that imports a Node built-in', { timeout: 60_000 }, async () => {
    const entry = join(mkdtempSync(join(tmpdir(), 'verdict-bundle-')), 'entry.ts');
    writeFileSync(entry, "import { readFileSync } from 'node:fs';\nexport const read = () => readFileSync('x');\n");
    await expect(bundleForBrowser(entry, [])).rejects.toThrow(/imports the Node built-in "node:fs"/);
  });

  it('shows the recorded sizes on the performance page', () => {
    const { budget, docs } = setup();
    expect(readFileSync(docs, 'utf8')).toContain(renderBundleSection(budget));
  });
});
