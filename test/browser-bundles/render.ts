/** The "Browser bundles" section of docs/performance.md, from the committed budget (shared by `pnpm size` and the bench report). */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BundleName, BundleSize } from './measure.js';

export interface Budget {
  /** How much larger than recorded a bundle may grow before the check fails (0.1: 10%). */
  tolerance: number;
  /** Sizes recorded by the last `pnpm size`, in bytes. */
  bundles: Record<BundleName, BundleSize>;
}

export const BUDGET_FILE = resolve(dirname(fileURLToPath(import.meta.url)), 'budget.json');
export const SECTION_START = '<!-- browser-bundles:start (written by `pnpm size` from test/browser-bundles/budget.json) -->';
export const SECTION_END = '<!-- browser-bundles:end -->';

export function readBudget(): Budget {
  return JSON.parse(readFileSync(BUDGET_FILE, 'utf8')) as Budget;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** The section, markers included. */
export function renderBundleSection(budget: Budget = readBudget()): string {
  const rows = (Object.entries(budget.bundles) as Array<[BundleName, BundleSize]>).map(([name, size]) =>
    `| \`${name}\` | ${kb(size.gzip)} | ${name === '@verdict/core' || name === '@verdict/cel' ? '—' : kb(size.withCore)} |`);
  return `${SECTION_START}
## Browser bundles

\`@verdict/cel\`, core and every adapter's main entry build for the browser with no Node built-ins and no
polyfills (the [playground](../site/README.md) runs all of them in the page). Each entry is bundled from source by
Vite for ES2022 with the browser export conditions, minified and gzipped (level 9); \`@verdict/cel\` alone (what a
page evaluating Kubernetes CEL ships), core with its CEL, and an adapter without \`@verdict/core\` (shared by
every adapter) and with it (what a page using only that adapter ships).
\`@verdict/spinnaker/redis\` is Node-only and not a browser entry.

| entry | gzip | with \`@verdict/core\` |
|---|---|---|
${rows.join('\n')}

Most of core is its dependencies: cel-js (CEL), Ajv (JSON Schema), yaml, re2js (linear-time regular expressions),
and brace-expansion. A test fails when a bundle grows more than ${Math.round(budget.tolerance * 100)}% past these
figures (\`test/browser-bundles/budget.json\`); after a deliberate change, \`npx -y pnpm@10 size\` records the new
sizes here and in the budget.
${SECTION_END}`;
}
